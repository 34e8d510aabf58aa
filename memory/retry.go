// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package memory

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/a2abus/a2abus/internal/backoff"
)

// DefaultRetryBound is how long a component that rides out an outage of
// working memory (a workflow run, a conversation's driver, a chat session)
// retries one operation before it fails: long enough for a failover or a
// short pause of the server, short enough that a real outage is reported.
const DefaultRetryBound = 15 * time.Second

// RetryBackoff is the wait between Retry's attempts: 50ms doubling to 2s,
// with jitter.
var RetryBackoff = backoff.Policy{Min: 50 * time.Millisecond, Max: 2 * time.Second}

// Transient reports whether a failure of working memory may go away by
// waiting, so that the operation is worth trying again: ErrUnavailable (no
// answer in time, a broken connection, a server loading or read-only) and
// ErrRefused (an error the server answered that it or its operator can fix:
// OOM, NOPERM, MISCONF …). Nothing else is: not ErrNotFound (an answer, not
// a failure), an invalid key or argument (a bug), a closed memory, a stored
// value that does not decode, the end of the caller's own context, nor any
// error that is not working memory's. This is the one rule every retry of
// working memory follows.
func Transient(err error) bool {
	return errors.Is(err, ErrUnavailable) || errors.Is(err, ErrRefused)
}

// Failure is one failed attempt of Retry that will be tried again.
type Failure struct {
	// Attempt counts the attempts made so far, from 1.
	Attempt int
	// Waited is how long ago the first attempt failed (0 at the first failure).
	Waited time.Duration
	// Err is the attempt's error.
	Err error
}

// First reports whether this is the first failure: where a caller warns.
func (f Failure) First() bool { return f.Attempt == 1 }

// Retry runs op until it succeeds, fails with an error that is not
// Transient, ctx ends, or bound has passed since its first failure (0: no
// bound but ctx), waiting RetryBackoff between attempts. onFailure, when not
// nil, sees every failure that will be retried, before the wait. It returns
// nil; op's last error when it is not transient; that error wrapped with how
// long it was retried when the bound passed; or ctx's cause wrapped with the
// last error when ctx ended. Retry only ops that are safe to repeat after an
// outcome that is unknown (ErrUnavailable may come after the write applied).
func Retry(ctx context.Context, bound time.Duration, op func(context.Context) error, onFailure func(Failure)) error {
	var first time.Time
	for attempt := 1; ; attempt++ {
		err := op(ctx)
		if err == nil {
			return nil
		}
		if cerr := ctx.Err(); cerr != nil {
			if errors.Is(err, cerr) {
				return err
			}
			return fmt.Errorf("%w (last error: %w)", context.Cause(ctx), err)
		}
		if !Transient(err) {
			return err
		}
		var waited time.Duration
		if attempt == 1 {
			first = time.Now()
		} else {
			waited = time.Since(first)
		}
		if bound > 0 && waited >= bound {
			return fmt.Errorf("%w (still failing after %d attempts in %s)", err, attempt, waited.Round(time.Millisecond))
		}
		if onFailure != nil {
			onFailure(Failure{Attempt: attempt, Waited: waited, Err: err})
		}
		wait := RetryBackoff.Delay(attempt - 1)
		if bound > 0 {
			wait = min(wait, bound-waited)
		}
		if !backoff.Sleep(ctx, wait) {
			return fmt.Errorf("%w (last error: %w)", context.Cause(ctx), err)
		}
	}
}
