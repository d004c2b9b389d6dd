package analytics

import "fmt"

// dictionary gives the entries of a database table that views name by id
// (the agents; the referrers) the small local ids the index keeps per view
// (pathViews.origin): 0 is none, the others in the order first seen. At
// most max are told apart: a view of one more counts as none and in lost,
// and the counts of that dimension are made in SQL instead.
type dictionary[T comparable] struct {
	entries []T      // by local id; entries[0] is the zero T
	ids     []int64  // database ids, by local id
	of      []uint16 // local id by database id (0: not seen yet)
	max     int
	lost    int
}

// maxLocalIDs is how many entries a dictionary tells apart: local ids are
// 16 bits.
const maxLocalIDs = 1<<16 - 1

func newDictionary[T comparable](max int) dictionary[T] {
	var zero T
	return dictionary[T]{entries: []T{zero}, ids: []int64{0}, max: max}
}

// local (x.mu held) is the local id of database id id, given one when first
// seen (named holds its entry): 0 for id 0, and for an entry beyond max,
// counted in lost. what names the entries for an error.
func (d *dictionary[T]) local(id int64, named map[int64]T, what string) (uint16, error) {
	if id == 0 {
		return 0, nil
	}
	if id < int64(len(d.of)) && d.of[id] != 0 {
		return d.of[id], nil
	}
	e, ok := named[id]
	switch {
	case id < 0 || !ok:
		return 0, fmt.Errorf("analytics: a page view names an unknown %s (%d)", what, id)
	case len(d.entries) > d.max:
		d.lost++
		return 0, nil
	}
	local := uint16(len(d.entries)) // #nosec G115 -- at most max (at most maxLocalIDs, 65,535), checked above
	d.entries, d.ids = append(d.entries, e), append(d.ids, id)
	d.of = grow(d.of, id)
	d.of[id] = local
	return local, nil
}

// idsOf is the database ids (but 0) a chunk's column names, each once:
// the entries its load reads.
func idsOf(column []int64) []int64 {
	var out []int64
	seen := map[int64]bool{0: true}
	last := int64(0)
	for _, id := range column {
		if id != last && !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
		last = id
	}
	return out
}

// localIDs is how many local ids the views of class c take their origin
// from: the referrers' for Human, the agents' for the others.
func (x *index) localIDs(c Class) int {
	if c == Human {
		return len(x.referrers.entries)
	}
	return len(x.agents.entries)
}
