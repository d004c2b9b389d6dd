package analytics

import (
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestBitmapArenaPacks: bitmaps packed into an arena (arrays, bitsets,
// runs, empty, one larger than a block) hold the same values, and adding
// to one, as a view merged later does, changes neither its neighbours in
// the arena nor the others.
func TestBitmapArenaPacks(t *testing.T) {
	rnd := rand.New(rand.NewPCG(3, 4))
	var want []*roaring.Bitmap
	for i := range 400 {
		b := roaring.New()
		switch i % 4 {
		case 0:
			for range 1 + rnd.IntN(20) {
				b.Add(rnd.Uint32N(10_000_000))
			}
		case 1:
			for range 5000 + rnd.IntN(3000) { // a bitset container
				b.Add(rnd.Uint32N(65536))
			}
		case 2:
			b.AddRange(uint64(rnd.IntN(1000)), uint64(2000+rnd.IntN(100000)))
			b.RunOptimize()
		}
		want = append(want, b)
	}
	huge := roaring.New()
	for range 200_000 {
		huge.Add(rnd.Uint32N(1 << 30))
	}
	want = append(want, huge)
	var a bitmapArena
	got := make([]*roaring.Bitmap, len(want))
	for i, b := range want {
		got[i] = a.pack(b.Clone())
		if !got[i].Equals(b) {
			t.Fatalf("bitmap %d packed holds %d values, want %d", i, got[i].GetCardinality(), b.GetCardinality())
		}
	}
	for i := range got {
		v := rnd.Uint32N(70000)
		got[i].Add(v)
		want[i].Add(v)
		got[i].Remove(got[i].Minimum())
		want[i].Remove(want[i].Minimum())
	}
	for i := range got {
		if !got[i].Equals(want[i]) {
			t.Fatalf("bitmap %d changed by another's change, or not changed", i)
		}
	}
}
