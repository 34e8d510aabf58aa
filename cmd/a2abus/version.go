package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"
)

// Set at build time: go build -ldflags "-X main.version=v1.2.3 -X main.commit=abc1234".
var (
	version = "dev"
	commit  = "dev"
)

// newVersionCmd prints the version, the commit and the Go version. It needs
// no configuration, so it works even when the configuration is bad.
func newVersionCmd(c *cli) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version, commit and Go version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(c.stdout, "a2abus %s (commit %s, %s, %s/%s)\n",
				version, commit, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
