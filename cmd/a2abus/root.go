// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/internal/cliutil"
)

// cli is the state shared by the commands of one run: the output streams and
// the persistent flags.
type cli struct {
	stdout, stderr io.Writer
	configFile     string
}

// env is what a command body that needs the configuration receives: the
// resolved configuration (Config, File, Log, Origins) and what opens its
// servers with a one-line error when one cannot be reached (OpenNode,
// OpenBusNode, OpenBus, OpenMemory).
type env struct {
	*cliutil.Loaded
	// Out is the command's standard output.
	Out io.Writer
	// Err is the command's standard error (progress, notes).
	Err io.Writer
}

// runFunc is the body of a command that needs the configuration.
type runFunc func(ctx context.Context, e *env, args []string) error

// newRootCmd builds the command tree. Every subcommand is constructed by a
// newXxxCmd(c *cli) function in its own file and added to the list below;
// one that needs the configuration uses RunE: c.withConfig(body).
func newRootCmd(stdout, stderr io.Writer) *cobra.Command {
	c := &cli{stdout: stdout, stderr: stderr}
	root := &cobra.Command{
		Use:   "a2abus",
		Short: "Let AI agents call each other over RabbitMQ, with Redis as working memory",
		Long: "a2abus lets AI agents invoke each other by name and skill over a message bus.\n" +
			"With no bus.url and no redis.url, commands use the local servers (" + cliutil.LocalAMQPURL + ",\n" +
			cliutil.LocalRedisURL + "); demo, and any command given --embedded, an embedded in-process bus and memory.\n" +
			"Exit codes: 0 ok, 1 usage, configuration or other failure, 2 the task failed, 3 the call was refused before\n" +
			"publishing (AGENT_NOT_FOUND, SKILL_NOT_SUPPORTED, INVALID_INPUT, FORBIDDEN, ...; for reply: TASK_FINISHED,\n" +
			"INVALID_STATE, ...), 4 the task waits for input (its agent asks a question, printed: answer it with\n" +
			"a2abus reply TASK ANSWER). With --json a failure is also printed on stdout as\n" +
			"{\"error\":{\"code\":...,\"message\":...,\"exitCode\":...}}.",
		Example: "  a2abus serve --agent SampleAgent &\n" +
			"  a2abus invoke SampleAgent echo hello --wait\n" +
			"  a2abus demo\n" +
			"  source <(a2abus completion bash)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetOut(stdout)
	root.SetErr(stderr)
	cliutil.AddConfigFlags(root.PersistentFlags(), &c.configFile)
	cliutil.AddVersion(root, build())
	root.AddCommand(
		newConfigCmd(c),
		newTopologyCmd(c),
		cliutil.SetProfile(newBenchCmd(c), cliutil.AsConfigured), // it names its servers itself
		newInvokeCmd(c),
		newWaitCmd(c),
		newReplyCmd(c),
		newCancelCmd(c),
		newDemoCmd(c),
		newServeCmd(c),
		newAgentsCmd(c),
		newDirectoryCmd(c),
		newMemoryCmd(c),
		newConversationCmd(c),
		newHistoryCmd(c),
		newAuditCmd(c),
		newChatCmd(c),
		cliutil.SetProfile(newMCPCmd(c), cliutil.Daemon),
		newGatewayCmd(c),
		newConsoleCmd(c),
		newConformanceCmd(c),
		newWorkflowCmd(c),
		newConverseCmd(c),
		newAccessCmd(c),
		newKeysCmd(c),
		newDoctorCmd(c),
	)
	addCompletion(root)
	return root
}

// withConfig adapts body to cobra: it loads the configuration (file, A2ABUS_*
// environment, the flags of cmd; cliutil.LoadConfig), runs body and flushes
// the logger. A bad configuration stops here, before body runs.
func (c *cli) withConfig(body runFunc) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		l, err := cliutil.LoadConfig(cmd, c.configFile)
		if err != nil {
			return err
		}
		defer func() { _ = l.Log.Sync() }() // best effort: stderr may not support fsync
		return body(cmd.Context(), &env{Loaded: l, Out: c.stdout, Err: c.stderr}, args)
	}
}

// exitTaskFailed is the exit code of a command whose task failed or timed out.
const exitTaskFailed = cliutil.ExitTaskFailed

// taskFailed makes the command exit with exitTaskFailed, printing err.
func taskFailed(err error) error { return cliutil.TaskFailed(err) }
