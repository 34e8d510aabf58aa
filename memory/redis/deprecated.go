// Package redis is the old path of a2abus's Redis working memory, kept for one
// release so that existing importers still build. It only forwards to
// memory/redismem, whose name does not collide with go-redis's package redis.
//
// Deprecated: use github.com/a2abus/a2abus/memory/redismem.
package redis

import (
	"context"

	"github.com/a2abus/a2abus/memory/redismem"
)

// Defaults applied by New to zero Options fields.
const (
	// Deprecated: use redismem.DefaultKeyPrefix.
	DefaultKeyPrefix = redismem.DefaultKeyPrefix
	// Deprecated: use redismem.DefaultTimeout.
	DefaultTimeout = redismem.DefaultTimeout
)

// Memory is redismem.Memory.
//
// Deprecated: use redismem.Memory.
type Memory = redismem.Memory

// Options is redismem.Options.
//
// Deprecated: use redismem.Options.
type Options = redismem.Options

// New is redismem.New.
//
// Deprecated: use redismem.New.
func New(ctx context.Context, opts Options) (*Memory, error) {
	return redismem.New(ctx, opts)
}
