// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package access

import (
	"fmt"
	"io"
	"strings"
)

// Commands are the rabbitmqctl argument lists that create the plan's users
// (password gives each user's password) and grant their permissions.
func (p *Plan) Commands(password func(user string) string) [][]string {
	var out [][]string
	for _, u := range p.Users {
		out = append(out,
			[]string{"add_user", u.Name, password(u.Name)},
			[]string{"set_permissions", "-p", p.VHost, u.Name, u.Configure, u.Write, u.Read})
		for _, t := range u.Topics {
			out = append(out, []string{"set_topic_permissions", "-p", p.VHost, u.Name, t.Exchange, t.Write, t.Read})
		}
	}
	return out
}

// PasswordVar is the environment variable the printed commands read user's
// password from: A2ABUS_PASSWORD_<USER>, upper-cased, '-' as '_'.
func PasswordVar(user string) string {
	return "A2ABUS_PASSWORD_" + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_").Replace(user))
}

// WriteCommands prints the plan as a shell script of rabbitmqctl commands;
// passwords come from PasswordVar variables, never from the plan.
func (p *Plan) WriteCommands(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "#!/bin/sh\n# a2abus access plan: vhost %s, exchange %s.\n", shellQuote(p.VHost), shellQuote(p.Exchange))
	b.WriteString("# Set each user's password in its A2ABUS_PASSWORD_<USER> variable first.\nset -eu\n")
	for _, c := range p.Commands(func(u string) string { return "\x00" + PasswordVar(u) }) {
		if c[0] == "add_user" {
			fmt.Fprintf(&b, "\n# %s acts as %s\n", c[1], strings.Join(p.Users[userIndex(p, c[1])].Acts, ", "))
		}
		b.WriteString("rabbitmqctl")
		for _, a := range c {
			if v, ok := strings.CutPrefix(a, "\x00"); ok {
				fmt.Fprintf(&b, ` "$%s"`, v)
				continue
			}
			b.WriteString(" " + shellQuote(a))
		}
		b.WriteString("\n")
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return fmt.Errorf("access: write commands: %w", err)
	}
	return nil
}

func userIndex(p *Plan, name string) int {
	for i, u := range p.Users {
		if u.Name == name {
			return i
		}
	}
	return 0
}

// shellQuote quotes s for sh in single quotes.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
