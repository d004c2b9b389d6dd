package analytics

import "fmt"

// Class is what kind of client made a page view (CONTRACT §3).
type Class uint8

// The classes; their numbers are stored in the database.
const (
	Human      Class = iota // a browser
	AI                      // an AI agent acting for a person, or Markdown read by a non-crawler
	AISearch                // an AI search indexer
	AITraining              // an AI training crawler
	Bot                     // search engine, SEO, monitor, script
	numClasses
)

func (c Class) String() string {
	switch c {
	case Human:
		return "human"
	case AI:
		return "ai"
	case AISearch:
		return "aiSearch"
	case AITraining:
		return "aiTraining"
	case Bot:
		return "bots"
	}
	return fmt.Sprintf("Class(%d)", uint8(c))
}

// IsVisitor says whether views of this class count as visitors: crawlers
// are kept for the views breakdown but are not visitors.
func (c Class) IsVisitor() bool { return c == Human || c == AI }

// ParseClass is the class whose name (as String gives it) is name.
func ParseClass(name string) (Class, bool) {
	for c := range numClasses {
		if c.String() == name {
			return c, true
		}
	}
	return 0, false
}
