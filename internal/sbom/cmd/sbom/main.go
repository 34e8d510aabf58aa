// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

// Command sbom writes the CycloneDX SBOM of a Go binary (package
// internal/sbom) to standard output or -o FILE: `sbom [-name NAME]
// [-version VERSION] [-o FILE] BINARY`. -version is the version stamped in
// the binary (go records no -ldflags in a -trimpath build, so the SBOM
// cannot read it there). The timestamp is SOURCE_DATE_EPOCH when it is set (none
// otherwise), so the same binary gives the same document. scripts/release.sh
// runs it for every binary it builds. Exit code 1 on failure, 2 on bad usage.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/a2abus/a2abus/internal/sbom"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// errUsage marks an error of the command line (exit code 2).
var errUsage = errors.New("usage: sbom [-name NAME] [-version VERSION] [-o FILE] BINARY")

// run writes the SBOM the arguments ask for and returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if err := write(args, stdout, stderr); err != nil {
		fmt.Fprintln(stderr, "sbom:", err)
		if errors.Is(err, errUsage) {
			return 2
		}
		return 1
	}
	return 0
}

func write(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("sbom", flag.ContinueOnError)
	fs.SetOutput(stderr)
	name := fs.String("name", "", "the program's name in the document (default: the binary's file name)")
	version := fs.String("version", "", "the program's version (default: the -X main.version its build information records, else its module's)")
	out := fs.String("o", "", "write the document to this file instead of standard output")
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %w", errUsage, err)
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one binary, got %d arguments", errUsage, fs.NArg())
	}
	bin := fs.Arg(0)
	if *name == "" {
		*name = filepath.Base(bin)
	}
	at, err := sourceDate(os.Getenv("SOURCE_DATE_EPOCH"))
	if err != nil {
		return err
	}
	info, err := sbom.Read(bin)
	if err != nil {
		return err
	}
	doc, err := sbom.Build(*name, *version, info, at).Marshal()
	if err != nil {
		return err
	}
	if *out == "" {
		_, err = stdout.Write(doc)
		return err
	}
	if err := os.WriteFile(*out, doc, 0o644); err != nil {
		return fmt.Errorf("write %q: %w", *out, err)
	}
	return nil
}

// sourceDate reads SOURCE_DATE_EPOCH (seconds since 1970): the zero time
// when it is empty.
func sourceDate(v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	s, err := strconv.ParseInt(v, 10, 64)
	if err != nil || s < 0 {
		return time.Time{}, fmt.Errorf("SOURCE_DATE_EPOCH=%q: want seconds since 1970", v)
	}
	return time.Unix(s, 0).UTC(), nil
}
