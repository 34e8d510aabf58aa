// SPDX-License-Identifier: Apache-2.0
// Copyright 2026 The a2abus Authors

package research

import (
	"bytes"
	"context"
	"hash/maphash"
	"slices"
)

// index is a set of passages with their words tokenized once, each word
// a number: ranking them for a query (index.rank) then counts numbers
// rather than tokenizing every passage again, as Rank does.
type index struct {
	passages []Passage
	words    vocabulary
	// terms holds the words of every passage in turn, as Tokenize(heading +
	// "\n" + text) returns them; passage i's are terms[ends[i-1]:ends[i]].
	terms []uint32
	ends  []int
}

// checkEvery is how many passages newIndex tokenizes between two looks at
// its context.
const checkEvery = 64

// newIndex tokenizes passages into an index; it stops with ctx's error
// when ctx ends.
func newIndex(ctx context.Context, passages []Passage) (*index, error) {
	x := &index{passages: passages, ends: make([]int, len(passages))}
	size := 0
	for i := range passages {
		size += len(passages[i].Heading) + len(passages[i].Text)
	}
	x.terms = make([]uint32, 0, size/8) // about 9 bytes a word in English prose
	x.words.init(size / 128)
	var buf []byte
	add := func(term []byte) { x.terms = append(x.terms, x.words.add(term)) }
	for i := range passages {
		buf = scanTerms(passages[i].Heading, buf, add)
		buf = scanTerms(passages[i].Text, buf, add)
		x.ends[i] = len(x.terms)
		if i%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
	}
	return x, nil
}

// rank is Rank(x.passages, query, limit): the same hits, scores and order.
func (x *index) rank(query []string, limit int) []Hit {
	if len(x.passages) == 0 || len(query) == 0 {
		return nil
	}
	terms := slices.Compact(slices.Sorted(slices.Values(query)))
	q := len(terms)
	slot := make(map[uint32]int, q)                 // a query term's word number → its place in terms
	member := make([]uint64, (x.words.len()+63)/64) // the query's word numbers: most words are not looked up
	for k, t := range terms {
		if id, ok := x.words.lookup(t); ok {
			slot[id] = k
			member[id/64] |= 1 << (id % 64)
		}
	}
	tf := make([]int32, len(x.passages)*q)
	lengths := make([]int, len(x.passages))
	start := 0
	for i, end := range x.ends {
		row := tf[i*q : i*q+q]
		for _, id := range x.terms[start:end] {
			if member[id/64]&(1<<(id%64)) != 0 {
				row[slot[id]]++
			}
		}
		lengths[i] = end - start
		start = end
	}
	return bm25Hits(x.passages, q, tf, lengths, len(x.terms), limit)
}

// vocabulary numbers distinct words 0, 1, 2… in the order they are added.
// The words are kept end to end in one buffer and found through an
// open-addressing table: a few allocations for thousands of words, where a
// map would make one a word.
type vocabulary struct {
	seed  maphash.Seed
	text  []byte   // every word, end to end
	ends  []uint32 // word i is text[ends[i-1]:ends[i]]
	slots []uint32 // a word's number + 1, 0 when free; the length is a power of two
}

// init makes room for about n words.
func (v *vocabulary) init(n int) {
	v.seed = maphash.MakeSeed()
	size := 64
	for size < 2*n {
		size *= 2
	}
	v.slots = make([]uint32, size)
	v.ends = make([]uint32, 0, n)
	v.text = make([]byte, 0, 8*n)
}

// len is the number of words.
func (v *vocabulary) len() int { return len(v.ends) }

// word is the word numbered i.
func (v *vocabulary) word(i uint32) []byte {
	start := uint32(0)
	if i > 0 {
		start = v.ends[i-1]
	}
	return v.text[start:v.ends[i]]
}

// find returns w's number, or the free slot where it would go.
func (v *vocabulary) find(w []byte, h uint64) (id uint32, found bool, free int) {
	mask := uint64(len(v.slots) - 1)
	for i := h & mask; ; i = (i + 1) & mask {
		s := v.slots[i]
		if s == 0 {
			return 0, false, int(i)
		}
		if bytes.Equal(v.word(s-1), w) {
			return s - 1, true, 0
		}
	}
}

// add returns w's number, numbering it when it is new.
func (v *vocabulary) add(w []byte) uint32 {
	h := maphash.Bytes(v.seed, w)
	id, found, free := v.find(w, h)
	if found {
		return id
	}
	id = uint32(len(v.ends))
	v.text = append(v.text, w...)
	v.ends = append(v.ends, uint32(len(v.text)))
	v.slots[free] = id + 1
	if 2*len(v.ends) > len(v.slots) { // at most half full: short probes
		v.grow()
	}
	return id
}

// grow doubles the table.
func (v *vocabulary) grow() {
	v.slots = make([]uint32, 2*len(v.slots))
	for id := range uint32(len(v.ends)) {
		w := v.word(id)
		_, _, free := v.find(w, maphash.Bytes(v.seed, w))
		v.slots[free] = id + 1
	}
}

// lookup returns w's number, false when it is not in the vocabulary.
func (v *vocabulary) lookup(w string) (uint32, bool) {
	if len(v.slots) == 0 {
		return 0, false
	}
	id, found, _ := v.find([]byte(w), maphash.String(v.seed, w))
	return id, found
}
