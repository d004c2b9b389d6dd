package model

// Interactions are what a batch of events holds besides page views: the
// searches, the results opened from them and the feedback, stored in the
// transaction that stores the batch's views.
type Interactions struct {
	Searches []NewSearch
	Clicks   []NewSearchClick
	Feedback []Feedback
}

// Len is how many events the interactions are (none when in is nil).
func (in *Interactions) Len() int {
	if in == nil {
		return 0
	}
	return len(in.Searches) + len(in.Clicks) + len(in.Feedback)
}

// NewSearch is one search to store: the term as grouped and how many
// results the search box showed.
type NewSearch struct {
	At      int64 // unix milliseconds
	Query   string
	Results int
}

// NewSearchClick is a result opened from a search, to store.
type NewSearchClick struct {
	At    int64 // unix milliseconds
	Query string
	Path  string
}

// SearchTerm is one term's searches in a range.
type SearchTerm struct {
	Query  string
	Hits   int
	LastAt int64 // unix milliseconds
}

// SearchClickCount is how often one result was opened from one term.
type SearchClickCount struct {
	Query  string
	Path   string
	Clicks int
}
