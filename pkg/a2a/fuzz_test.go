package a2a

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzDecode feeds arbitrary kinds and bodies to the decoder. It must never
// panic; it either returns a *DecodeError or a payload that survives a
// re-encode and decode unchanged. The seed corpus is in testdata/fuzz/FuzzDecode.
func FuzzDecode(f *testing.F) {
	addSeeds(f, samplePayloads())
	c := Codec{MaxBodyBytes: 64 << 10}
	f.Fuzz(func(t *testing.T, kind string, body []byte) {
		env := Envelope{Kind: Kind(kind), MessageID: "m", Body: body}
		p, err := c.Decode(env)
		if err != nil {
			var de *DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			return
		}
		if p.Kind() != Kind(kind) {
			t.Fatalf("decoded kind %q from %q", p.Kind(), kind)
		}
		b1, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("re-marshal a decoded payload: %v", err)
		}
		p2, err := c.Decode(Envelope{Kind: Kind(kind), MessageID: "m", Body: b1})
		if err != nil {
			t.Fatalf("decode of a re-encoded payload failed: %v\nbody %s", err, b1)
		}
		b2, err := json.Marshal(p2)
		if err != nil || string(b1) != string(b2) {
			t.Fatalf("round trip not stable:\n%s\n%s", b1, b2)
		}
	})
}

// addSeeds adds each payload's kind and JSON to f's seed corpus.
func addSeeds(f *testing.F, payloads []Payload) {
	for _, p := range payloads {
		b, err := json.Marshal(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(p.Kind()), b)
	}
}
