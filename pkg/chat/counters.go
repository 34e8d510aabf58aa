package chat

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/a2abus/a2abus/memory"
)

// keys are the working-memory keys of one session's chat state, under its
// session prefix (session/<id>/chat/…).
type keys struct {
	lease   string // the holder of the right to run the model: "<owner>"
	handled string // the cursor: inputs up to this seq were handled
	tokens  string // the tokens the session has spent
}

func newKeys(session string) (keys, error) {
	p, err := memory.SessionPrefix(session)
	if err != nil {
		return keys{}, err
	}
	return keys{lease: p + "chat/lease", handled: p + "chat/handled", tokens: p + "chat/tokens"}, nil
}

// readInt reads a decimal counter; a missing key is 0.
func readInt(ctx context.Context, m memory.Store, key string) (int64, error) {
	v, err := m.Get(ctx, key)
	if errors.Is(err, memory.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	n, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return 0, fmt.Errorf("chat: %q holds %q, not a number: %w", key, v, err)
	}
	return n, nil
}

func intValue(n int64) []byte { return strconv.AppendInt(nil, n, 10) }
