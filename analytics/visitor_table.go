package analytics

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
	mask := uint64(len(t.keys) - 1)
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
	mask := uint64(len(t.keys) - 1)
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

// wellFormed says whether the table's arrays are as put leaves them (a
// snapshot's, say): of one power-of-two length, or both empty.
func (t *visitorTable) wellFormed() bool {
	n := len(t.keys)
	return n == len(t.vals) && n&(n-1) == 0 && t.n <= n
}

// slot is key's home slot: a multiplicative hash (the ids are hashes
// already, but small test ids are not).
func slot(key int64, mask uint64) uint64 {
	return (uint64(key) * 0x9e3779b97f4a7c15 >> 20) & mask
}
