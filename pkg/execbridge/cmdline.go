// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package execbridge

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrBadCommand is wrapped by every error about the command line of --exec.
var ErrBadCommand = errors.New("execbridge: bad command line")

// CommandError says what is wrong with a command line, and where.
type CommandError struct {
	Command string // the command line as given
	Offset  int    // byte offset of the problem in Command, -1 when it is not about one place
	Reason  string // what is wrong
}

// Error names the command line, the offset and the reason.
func (e *CommandError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("%v %q: %s", ErrBadCommand, e.Command, e.Reason)
	}
	return fmt.Sprintf("%v %q: at byte %d: %s", ErrBadCommand, e.Command, e.Offset, e.Reason)
}

// Unwrap returns ErrBadCommand.
func (e *CommandError) Unwrap() error { return ErrBadCommand }

// argv is the process's program and arguments: Argv as given, else
// Command split (SplitCommand).
func (o Options) argv() ([]string, error) {
	switch {
	case len(o.Argv) > 0 && o.Command != "":
		return nil, &CommandError{Command: o.Command, Offset: -1, Reason: "give the command as one line or as argv, not both"}
	case len(o.Argv) > 0 && o.Argv[0] == "":
		return nil, &CommandError{Command: QuoteCommand(o.Argv), Offset: -1, Reason: "the program's name is empty"}
	case len(o.Argv) > 0:
		return slices.Clone(o.Argv), nil
	}
	return SplitCommand(o.Command)
}

// QuoteCommand writes argv as one command line that SplitCommand splits
// back into argv: words of plain characters as they are, the others in
// single quotes, a quote among them written as an escaped quote between
// two quoted parts, as a shell would read it.
func QuoteCommand(argv []string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		if w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./=:,+@%-") == "" {
			words[i] = w
			continue
		}
		words[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
	}
	return strings.Join(words, " ")
}

// SplitCommand splits a command line into words as a POSIX shell would,
// without running one: words are separated by blanks; 'single quotes' keep
// everything literally; "double quotes" keep everything but a backslash
// before \ " $ ` or a newline; a backslash outside quotes keeps the next
// character (a backslash-newline joins lines). What only a shell could do —
// expansions ($VAR, $(…), `…`), operators (| & ; < > ( )), unclosed quotes
// and a trailing backslash — is a *CommandError wrapping ErrBadCommand.
// Globs (*, ?) and ~ are not expanded: they reach the program as written.
//
// Kept rather than github.com/google/shlex (weighed 2026-11): shlex splits
// "a | b", "$HOME" and "x; rm y" into words the program receives literally,
// drops everything after an unquoted '#' as a comment, and reports an
// unclosed quote as "EOF found when expecting closing quote", without
// where. The command lines of --exec are written by people expecting a
// shell; what only a shell would do is refused here, naming the byte.
func SplitCommand(line string) ([]string, error) {
	bad := func(off int, format string, args ...any) error {
		return &CommandError{Command: line, Offset: off, Reason: fmt.Sprintf(format, args...)}
	}
	var (
		words  []string
		cur    strings.Builder
		inWord bool
	)
	end := func() {
		if inWord {
			words = append(words, cur.String())
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r':
			end()
		case ch == '\\':
			if i+1 == len(line) {
				return nil, bad(i, "a trailing backslash escapes nothing")
			}
			i++
			if line[i] != '\n' { // backslash-newline: a line continuation
				cur.WriteByte(line[i])
				inWord = true
			}
		case ch == '\'':
			j := strings.IndexByte(line[i+1:], '\'')
			if j < 0 {
				return nil, bad(i, "unterminated single quote")
			}
			cur.WriteString(line[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case ch == '"':
			next, err := doubleQuoted(line, i, &cur, bad)
			if err != nil {
				return nil, err
			}
			inWord = true
			i = next
		case ch == '$' || ch == '`':
			if ch == '$' && (i+1 == len(line) || !startsExpansion(line[i+1])) {
				cur.WriteByte(ch) // a lone $ is literal, as in a shell
				inWord = true
				continue
			}
			return nil, bad(i, "%q starts a shell expansion, and no shell is run: quote it with '…' to pass it literally", line[i:min(i+2, len(line))])
		case strings.IndexByte("|&;<>()", ch) >= 0:
			return nil, bad(i, "%q is a shell operator, and no shell is run: wrap the pipeline in a script, or quote it with '…' to pass it literally", string(ch))
		default:
			cur.WriteByte(ch)
			inWord = true
		}
	}
	end()
	if len(words) == 0 {
		return nil, bad(-1, "no program to run")
	}
	return words, nil
}

// doubleQuoted appends the double-quoted string starting at line[start] to
// cur and returns the offset of its closing quote.
func doubleQuoted(line string, start int, cur *strings.Builder, bad func(int, string, ...any) error) (int, error) {
	for i := start + 1; i < len(line); i++ {
		switch ch := line[i]; ch {
		case '"':
			return i, nil
		case '\\':
			if i+1 < len(line) && strings.IndexByte("\\\"$`\n", line[i+1]) >= 0 {
				i++
				if line[i] != '\n' {
					cur.WriteByte(line[i])
				}
				continue
			}
			cur.WriteByte(ch)
		case '$', '`':
			if ch == '$' && (i+1 == len(line) || !startsExpansion(line[i+1])) {
				cur.WriteByte(ch)
				continue
			}
			return 0, bad(i, "%q starts a shell expansion, and no shell is run: quote it with '…' to pass it literally", line[i:min(i+2, len(line))])
		default:
			cur.WriteByte(ch)
		}
	}
	return 0, bad(start, "unterminated double quote")
}

// startsExpansion reports whether c after a $ makes a shell expansion.
func startsExpansion(c byte) bool {
	return c == '{' || c == '(' || c == '_' || c == '?' || c == '@' || c == '*' || c == '#' || c == '!' || c == '$' || c == '-' ||
		(c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
}
