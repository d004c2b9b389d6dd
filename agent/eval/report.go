package eval

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// WriteTable prints one row per task and a total: solved, checks clean,
// how the run ended, model calls, tokens (input with cache reads, largest
// request, output), cost when the price is known, and wall time.
func WriteTable(w io.Writer, rows []Outcome) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "task\tkind\tsolved\tchecks\tended\tcalls\tinput\tcached\tlargest\toutput\tcost\ttime\t")
	var tot Usage
	solved, clean := 0, 0
	var wall time.Duration
	costKnown := len(rows) > 0
	for _, r := range rows {
		u := r.Usage
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", r.Task, r.Kind, yes(r.Solved), yes(r.ChecksClean), r.Ended,
			u.Calls, u.Input, u.CacheRead, u.LargestRequest, u.Output, cost(u), r.Wall.Round(time.Millisecond))
		if r.Solved {
			solved++
		}
		if r.ChecksClean {
			clean++
		}
		tot.Calls += u.Calls
		tot.Input += u.Input
		tot.CacheRead += u.CacheRead
		tot.Output += u.Output
		tot.Cost += u.Cost
		tot.LargestRequest = max(tot.LargestRequest, u.LargestRequest)
		costKnown = costKnown && u.CostKnown
		wall += r.Wall
	}
	tot.CostKnown = costKnown
	fmt.Fprintf(tw, "total\t\t%d/%d\t%d/%d\t\t%d\t%d\t%d\t%d\t%d\t%s\t%s\t\n", solved, len(rows), clean, len(rows),
		tot.Calls, tot.Input, tot.CacheRead, tot.LargestRequest, tot.Output, cost(tot), wall.Round(time.Millisecond))
	_ = tw.Flush() // w is a terminal or a buffer
}

func yes(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func cost(u Usage) string {
	if !u.CostKnown {
		return "-"
	}
	return fmt.Sprintf("$%.4f", u.Cost)
}
