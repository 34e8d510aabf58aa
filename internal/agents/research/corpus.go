// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"iter"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
	"unsafe"

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
}

// Name is "path#heading", or the path alone when there is no heading.
func (p *Passage) Name() string {
	if p.Heading == "" {
		return p.Path
	}
	return p.Path + "#" + p.Heading
}

func newPassage(path, heading, text string) Passage {
	return Passage{Path: path, Heading: heading, Text: text}
}

// terms is Tokenize(heading + "\n" + text).
func (p *Passage) terms() []string { return Tokenize(p.Heading + "\n" + p.Text) }

// isDocument reports whether name is a file the research skill reads.
func isDocument(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".md", ".txt":
		return true
	}
	return false
}

// Docs is where the research skill reads its documents: a folder on disk,
// or files built into the program (Embedded). Every task lists them; what
// was read and indexed for one task (or by Preload) is reused by the next
// while no file was added, removed or changed (library.go).
type Docs struct {
	fsys fs.FS
	dir  string   // the folder on disk; "" for built-in files
	name string   // how answers and errors name it
	lib  *library // the documents last read and indexed, shared by the copies of a Docs
}

// Folder is the docs folder dir on disk.
func Folder(dir string) Docs {
	return Docs{fsys: os.DirFS(dir), dir: dir, name: fmt.Sprintf("docs folder %q", dir), lib: &library{}}
}

// Embedded is the documents of fsys (an embed.FS, say), named name in
// answers and errors: the skill then needs no folder on disk.
func Embedded(fsys fs.FS, name string) Docs { return Docs{fsys: fsys, name: name, lib: &library{}} }

// String names the documents: `docs folder "docs"`, or an Embedded one's name.
func (d Docs) String() string { return d.name }

// listDocuments returns the paths, relative and with "/" separators, of
// the .md and .txt files of d, recursively and sorted, skipping hidden
// folders. A missing folder is an error wrapping fs.ErrNotExist.
func listDocuments(ctx context.Context, d Docs) ([]string, error) {
	files, err := listStamped(ctx, d)
	if err != nil {
		return nil, err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		paths[i] = f.path
	}
	return paths, nil
}

// listStamped is listDocuments with each file's stamp, taken as it is
// listed (before it is read).
func listStamped(ctx context.Context, d Docs) ([]docFile, error) {
	if d.dir != "" {
		st, err := os.Stat(d.dir)
		if err != nil {
			return nil, err
		}
		if !st.IsDir() {
			return nil, fmt.Errorf("%q is not a folder", d.dir)
		}
	}
	var files []docFile
	err := fs.WalkDir(d.fsys, ".", func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		if e.IsDir() {
			if path != "." && strings.HasPrefix(e.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if e.Type().IsRegular() && isDocument(e.Name()) {
			f := docFile{path: path}
			if info, err := e.Info(); err == nil {
				f.stamp = stampOf(info)
			} // else: gone since listed; its read says so, and a zero stamp is never reused
			files = append(files, f)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(files, func(a, b docFile) int { return strings.Compare(a.path, b.path) })
	return files, nil
}

// readDocument reads the file rel of d and splits it into passages named
// by rel. A file over MaxFileBytes, or one that is not a regular file, is
// refused unread.
func readDocument(d Docs, rel string) ([]Passage, error) {
	var (
		data []byte
		err  error
	)
	if d.dir != "" {
		data, err = fileread.Read(filepath.Join(d.dir, filepath.FromSlash(rel)), MaxFileBytes)
	} else {
		data, err = readBuiltIn(d.fsys, rel)
	}
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
	var text string
	if d.dir != "" {
		// fileread.Read's buffer is this call's alone and never written
		// again: the text is the buffer itself, not a copy of it.
		text = unsafe.String(unsafe.SliceData(data), len(data))
	} else {
		text = string(data)
	}
	if !utf8.Valid(data) { // checked first: Valid reads 8 bytes at a time, ToValidUTF8 a rune
		text = strings.ToValidUTF8(text, "\uFFFD")
	}
	if strings.EqualFold(path.Ext(rel), ".md") {
		return SplitMarkdown(rel, text), nil
	}
	return SplitText(rel, text), nil
}

// readBuiltIn reads rel of fsys, refusing one over MaxFileBytes unread.
func readBuiltIn(fsys fs.FS, rel string) ([]byte, error) {
	st, err := fs.Stat(fsys, rel)
	if err != nil {
		return nil, err
	}
	if st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("over the limit of %d bytes", MaxFileBytes)
	}
	return fs.ReadFile(fsys, rel)
}

// SplitMarkdown splits a Markdown document into its paragraphs, each under
// its nearest ATX heading ("# Title" … "###### Title"). Fenced code blocks
// stay whole and their lines are never headings.
func SplitMarkdown(path, text string) []Passage {
	var (
		out     []Passage
		para    paragraph
		heading string
		fence   string // the fence that opened the current code block
	)
	flush := func() {
		if t, ok := para.take(text); ok {
			out = append(out, newPassage(path, heading, t))
		}
	}
	for start, end := range lines(text) {
		line := strings.TrimRight(text[start:end], " \t\r")
		trimmed := strings.TrimSpace(line)
		switch {
		case fence != "":
			para.add(start, end, line)
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~"):
			fence = trimmed[:3]
			para.add(start, end, line)
		case trimmed == "":
			flush()
		default:
			if h, ok := atxHeading(line); ok {
				flush()
				heading = h
				continue
			}
			para.add(start, end, line)
		}
	}
	flush()
	return out
}

// lines yields the start and end offsets in text of each of its lines (as
// strings.Split(text, "\n") would return them, without allocating).
func lines(text string) iter.Seq2[int, int] {
	return func(yield func(int, int) bool) {
		for start := 0; ; {
			n := strings.IndexByte(text[start:], '\n')
			if n < 0 {
				yield(start, len(text))
				return
			}
			if !yield(start, start+n) {
				return
			}
			start += n + 1
		}
	}
}

// paragraph gathers the consecutive lines of one paragraph, trimmed on the
// right. When no line lost anything to the trim, the paragraph is the
// document's own text from its first line's start to its last line's end,
// taken without a copy; otherwise its lines are joined.
type paragraph struct {
	lines      []string
	start, end int
	trimmed    bool // a line lost trailing blanks or a carriage return
}

func (p *paragraph) add(start, end int, line string) {
	if len(p.lines) == 0 {
		p.start = start
	}
	p.end = start + len(line)
	p.trimmed = p.trimmed || start+len(line) != end
	p.lines = append(p.lines, line)
}

// take returns the paragraph's text (false when it has no line) and empties it.
func (p *paragraph) take(text string) (string, bool) {
	if len(p.lines) == 0 {
		return "", false
	}
	t := text[p.start:p.end]
	if p.trimmed {
		t = strings.Join(p.lines, "\n")
	}
	p.lines, p.trimmed = p.lines[:0], false
	return t, true
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
	var para paragraph
	flush := func() {
		if t, ok := para.take(text); ok {
			out = append(out, newPassage(path, "", t))
		}
	}
	for start, end := range lines(text) {
		line := strings.TrimRight(text[start:end], " \t\r")
		if strings.TrimSpace(line) == "" {
			flush()
			continue
		}
		para.add(start, end, line)
	}
	flush()
	return out
}
