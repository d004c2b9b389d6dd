package analytics

// automaton is an Aho-Corasick matcher over lower-cased ASCII: it finds
// every occurrence of every literal in one pass over the text, so a user
// agent is checked against all the lists at once.
type automaton struct {
	alphabet [256]uint8 // byte → column; 0 is "a byte no literal uses"
	width    int
	next     []int32 // state*width + column → state
	out      [][]int32
	outLink  []int32 // nearest proper suffix state with outputs, or -1
	lens     []int   // literal lengths by id
}

// newAutomaton builds the matcher; literal i is reported as id i. Literals
// must already be lower case.
func newAutomaton(literals []string) *automaton {
	a := &automaton{lens: make([]int, len(literals))}
	cols := 1
	for _, l := range literals {
		for i := 0; i < len(l); i++ {
			if a.alphabet[l[i]] == 0 {
				a.alphabet[l[i]] = uint8(cols)
				cols++
			}
		}
	}
	a.width = cols
	// The trie, with -1 for a missing edge.
	a.next = make([]int32, cols)
	for i := range a.next {
		a.next[i] = -1
	}
	a.out = [][]int32{nil}
	for id, l := range literals {
		a.lens[id] = len(l)
		s := int32(0)
		for i := 0; i < len(l); i++ {
			c := int(a.alphabet[l[i]])
			if a.next[int(s)*cols+c] < 0 {
				a.next[int(s)*cols+c] = int32(len(a.out)) // #nosec G115 -- states of the built-in token list: thousands
				a.out = append(a.out, nil)
				for range cols {
					a.next = append(a.next, -1)
				}
			}
			s = a.next[int(s)*cols+c]
		}
		a.out[s] = append(a.out[s], int32(id))
	}
	// Breadth-first: fail links, then turn the trie into a full DFA.
	n := len(a.out)
	fail := make([]int32, n)
	a.outLink = make([]int32, n)
	a.outLink[0] = -1
	queue := make([]int32, 0, n)
	for c := range cols {
		t := a.next[c]
		if t < 0 {
			a.next[c] = 0
			continue
		}
		fail[t], a.outLink[t] = 0, -1
		queue = append(queue, t)
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		for c := range cols {
			t := a.next[int(s)*cols+c]
			f := a.next[int(fail[s])*cols+c]
			if t < 0 {
				a.next[int(s)*cols+c] = f
				continue
			}
			fail[t] = f
			if len(a.out[f]) > 0 {
				a.outLink[t] = f
			} else {
				a.outLink[t] = a.outLink[f]
			}
			queue = append(queue, t)
		}
	}
	return a
}

// match calls fn with each literal id found in text and the index just past
// its end. text is folded to lower case as it is read.
func (a *automaton) match(text string, fn func(id int32, end int)) {
	s := int32(0)
	for i := 0; i < len(text); i++ {
		b := text[i]
		if 'A' <= b && b <= 'Z' {
			b += 'a' - 'A'
		}
		s = a.next[int(s)*a.width+int(a.alphabet[b])]
		for o := s; o >= 0; o = a.outLink[o] {
			for _, id := range a.out[o] {
				fn(id, i+1)
			}
			if o == 0 {
				break
			}
		}
	}
}
