// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package main

import (
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/a2abus/a2abus/pkg/a2a"
)

// newKeysCmd groups the commands about agents' signing keys.
func newKeysCmd(c *cli) *cobra.Command {
	cmd := &cobra.Command{
		Use:     "keys",
		Example: "  a2abus keys generate --name SampleAgent --dir /etc/a2abus/keys",
		Short:   "Manage the ed25519 keys agents sign their cards with",
	}
	cmd.AddCommand(newKeysGenerateCmd(c))
	return cmd
}

// newKeysGenerateCmd writes a new ed25519 key pair for an agent. It needs
// no configuration.
func newKeysGenerateCmd(c *cli) *cobra.Command {
	var name, dir string
	var force bool
	cmd := &cobra.Command{
		Use:     "generate --name AGENT [--dir DIR]",
		Example: "  a2abus keys generate --name SampleAgent\n  a2abus keys generate --name SampleAgent --dir keys/ --force",
		Short:   "Write a new ed25519 key pair for an agent and print its public key",
		Long: "Writes DIR/AGENT.key (the private key, PEM PKCS #8, mode 0600: set agent.signing_key_file to it)\n" +
			"and DIR/AGENT.pub (the public key, PEM), and prints the public key as the \"publicKey\" of the\n" +
			"agent's entry in well-known-agents.json, where directories pin it. Existing files are kept\n" +
			"unless --force is given.",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := a2a.ValidateAgentName(name); err != nil {
				return fmt.Errorf("keys generate: --name: %w", err)
			}
			_, key, err := ed25519.GenerateKey(rand.Reader)
			if err != nil {
				return fmt.Errorf("keys generate: %w", err)
			}
			priv, pub, err := a2a.MarshalKeyPair(key)
			if err != nil {
				return fmt.Errorf("keys generate: %w", err)
			}
			keyFile, pubFile := filepath.Join(dir, name+".key"), filepath.Join(dir, name+".pub")
			if !force {
				for _, f := range []string{keyFile, pubFile} {
					if _, err := os.Stat(f); !errors.Is(err, fs.ErrNotExist) {
						return fmt.Errorf("keys generate: %q exists (or cannot be checked: %v); keep it, or pass --force to replace it", f, err)
					}
				}
			}
			if err := writeKeyFile(keyFile, priv, 0o600); err != nil {
				return err
			}
			if err := writeKeyFile(pubFile, pub, 0o644); err != nil {
				return err
			}
			_, err = fmt.Fprintf(c.stdout, "private key: %s (agent.signing_key_file; keep it secret)\npublic key:  %s\n\"publicKey\": %q\n",
				keyFile, pubFile, a2a.EncodePublicKey(key.Public().(ed25519.PublicKey)))
			return err
		},
	}
	cmd.Flags().StringVar(&name, "name", "", "the agent's name (names the files)")
	cmd.Flags().StringVar(&dir, "dir", ".", "the folder to write the key files to")
	cmd.Flags().BoolVar(&force, "force", false, "replace existing key files")
	return cmd
}

// writeKeyFile writes data to path with mode (a replaced file gets it too).
func writeKeyFile(path string, data []byte, mode os.FileMode) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, mode)
	if err != nil {
		return fmt.Errorf("keys generate: %w", err)
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr, os.Chmod(path, mode)); err != nil {
		return fmt.Errorf("keys generate: write %q: %w", path, err)
	}
	return nil
}
