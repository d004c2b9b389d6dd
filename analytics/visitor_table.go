package analytics

import "fmt"

// visitorTable maps stored visitor ids (63-bit keyed hashes) to dense ids
// plus one, open addressing with linear probing in two flat arrays: a Go
// map of ten million entries cost twice the memory and most of a load's
// time, and flat arrays are written to and read from an index snapshot as
// they are.
type visitorTable struct {
	keys []int64 // 0: an empty slot (stored ids are positive)
	vals []uint32
	n    int
}

// get is the dense id plus one of key, 0 when absent.
func (t *visitorTable) get(key int64) uint32 {
	if len(t.keys) == 0 {
		return 0
	}
	mask := t.mask()
	for i := slot(key, mask); ; i = (i + 1) & mask {
		switch t.keys[i] {
		case key:
			return t.vals[i]
		case 0:
			return 0
		}
	}
}

// put records key → val (val > 0) for a key not yet present.
func (t *visitorTable) put(key int64, val uint32) {
	if 4*(t.n+1) > 3*len(t.keys) {
		t.grow()
	}
	mask := t.mask()
	i := slot(key, mask)
	for t.keys[i] != 0 {
		i = (i + 1) & mask
	}
	t.keys[i], t.vals[i] = key, val
	t.n++
}

func (t *visitorTable) grow() {
	old := *t
	size := max(1024, 2*len(old.keys))
	*t = visitorTable{keys: make([]int64, size), vals: make([]uint32, size)}
	for i, k := range old.keys {
		if k != 0 {
			t.put(k, old.vals[i])
		}
	}
}

// mask is the arrays' length less one (a power of two less one), for
// probing; the arrays are not empty.
func (t *visitorTable) mask() uint64 { return uint64(len(t.keys)) - 1 }

// check says how the table differs from what put leaves (one read from a
// snapshot, say), or nil: arrays of one power-of-two length (or none), n
// keys in them, a quarter of the slots empty (get and put probe until
// they meet one), and each value a dense id plus one, of dense ids given.
func (t *visitorTable) check(dense int) error {
	size := len(t.keys)
	if size != len(t.vals) || size&(size-1) != 0 {
		return fmt.Errorf("arrays of %d and %d slots", size, len(t.vals))
	}
	used := 0
	for i, k := range t.keys {
		if k == 0 {
			continue
		}
		used++
		if v := t.vals[i]; v == 0 || int64(v) > int64(dense) {
			return fmt.Errorf("a value of %d, of %d dense ids", v, dense)
		}
	}
	if used != t.n || 4*used > 3*size {
		return fmt.Errorf("%d keys in %d slots, counted %d", used, size, t.n)
	}
	return nil
}

// slot is key's home slot: a multiplicative hash (the ids are hashes
// already, but small test ids are not).
func slot(key int64, mask uint64) uint64 {
	return (uint64(key) * 0x9e3779b97f4a7c15 >> 20) & mask // #nosec G115 -- the key's bits, hashed
}
