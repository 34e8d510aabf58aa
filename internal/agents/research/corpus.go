// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/a2abus/a2abus/internal/fileread"
)

// MaxFileBytes is the largest document read; larger ones are skipped with a warning.
const MaxFileBytes = 4 << 20

// Passage is one paragraph of a document and where it comes from.
type Passage struct {
	// Path is the document's path relative to the docs folder, with "/" separators.
	Path string
	// Heading is the nearest Markdown heading above the paragraph; "" before
	// the first heading and in .txt files.
	Heading string
	// Text is the paragraph as written.
	Text string

	terms []string // Tokenize(Heading + Text)
}

// Name is "path#heading", or the path alone when there is no heading.
func (p *Passage) Name() string {
	if p.Heading == "" {
		return p.Path
	}
	return p.Path + "#" + p.Heading
}

func newPassage(path, heading, text string) Passage {
	return Passage{Path: path, Heading: heading, Text: text, terms: Tokenize(heading + "\n" + text)}
}

// isDocument reports whether name is a file the research skill reads.
func isDocument(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".txt":
		return true
	}
	return false
}

// listDocuments returns the .md and .txt files under dir, recursively and
// sorted, skipping hidden folders. A missing dir is an error wrapping fs.ErrNotExist.
func listDocuments(ctx context.Context, dir string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("%q is not a folder", dir)
	}
	var files []string
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if d.IsDir() {
			if path != dir && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && isDocument(d.Name()) {
			files = append(files, path)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(files)
	return files, nil
}

// readDocument reads one file and splits it into passages named by its path
// relative to dir. A file over MaxFileBytes, or one that is not a regular
// file, is refused unread.
func readDocument(dir, file string) ([]Passage, error) {
	data, err := fileread.Read(file, MaxFileBytes)
	if fe := (*fileread.Error)(nil); errors.As(err, &fe) {
		// The caller names the file, relative to the folder: the
		// server's own paths stay out of the answer.
		if errors.Is(fe, fileread.ErrTooLarge) {
			return nil, fmt.Errorf("over the limit of %d bytes", MaxFileBytes)
		}
		return nil, errors.New("not a regular file")
	}
	if err != nil {
		return nil, err
	}
	rel := relPath(dir, file)
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	if strings.EqualFold(filepath.Ext(file), ".md") {
		return SplitMarkdown(rel, text), nil
	}
	return SplitText(rel, text), nil
}

// relPath is file's path relative to dir with "/" separators (file itself
// when it is not under dir).
func relPath(dir, file string) string {
	rel, err := filepath.Rel(dir, file)
	if err != nil {
		return filepath.ToSlash(file)
	}
	return filepath.ToSlash(rel)
}

// SplitMarkdown splits a Markdown document into its paragraphs, each under
// its nearest ATX heading ("# Title" … "###### Title"). Fenced code blocks
// stay whole and their lines are never headings.
func SplitMarkdown(path, text string) []Passage {
	var (
		out     []Passage
		para    []string
		heading string
		fence   string // the fence that opened the current code block
	)
	flush := func() {
		if len(para) > 0 {
			out = append(out, newPassage(path, heading, strings.Join(para, "\n")))
			para = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			para = append(para, line)
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			para = append(para, line)
		case trimmed == "":
			flush()
		default:
			if h, ok := atxHeading(line); ok {
				flush()
				heading = h
				continue
			}
			para = append(para, line)
		}
	}
	flush()
	return out
}

// atxHeading returns the text of an ATX heading line.
func atxHeading(line string) (string, bool) {
	if strings.HasPrefix(line, "    ") || strings.HasPrefix(line, "\t") {
		return "", false // indented code
	}
	s := strings.TrimLeft(line, " ")
	level := len(s) - len(strings.TrimLeft(s, "#"))
	if level < 1 || level > 6 || (len(s) > level && s[level] != ' ' && s[level] != '\t') {
		return "", false
	}
	h := strings.TrimSpace(s[level:])
	if t := strings.TrimRight(h, "#"); t != h && (t == "" || strings.HasSuffix(t, " ")) {
		h = strings.TrimSpace(t) // closing sequence: "## Title ##"
	}
	return h, h != ""
}

// SplitText splits a plain-text document into its paragraphs (separated by blank lines).
func SplitText(path, text string) []Passage {
	var out []Passage
	var para []string
	flush := func() {
		if len(para) > 0 {
			out = append(out, newPassage(path, "", strings.Join(para, "\n")))
			para = nil
		}
	}
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimRight(line, " \t\r")
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		para = append(para, line)
	}
	flush()
	return out
}
