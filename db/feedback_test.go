package db_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"testing"
	"time"

	"github.com/folio-docs/folio/db"
	"github.com/folio-docs/folio/internal/testenv"
	"github.com/folio-docs/folio/model"
)

func newSite(t *testing.T, d *db.DB) (model.Project, int64) {
	t.Helper()
	ctx := context.Background()
	p, err := d.CreateProject(ctx, db.Project{Name: "Docs", Repository: "/tmp/docs"})
	if err != nil {
		t.Fatal(err)
	}
	site, err := d.AnalyticsSite(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	return p, site
}

// A batch's searches, clicks and feedback are stored with its views in one
// transaction, counted as stored, and a retry under its Idempotency-Key
// stores none of them again.
func TestInteractionsStoredWithTheBatch(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	_, site := newSite(t, d)
	yes := true
	more := &db.Interactions{
		Searches: []db.NewSearch{{At: 1000, Query: "auth", Results: 3}, {At: 2000, Query: "auth", Results: 0}, {At: 1500, Query: "keys", Results: 1}},
		Clicks:   []db.NewSearchClick{{At: 1100, Query: "auth", Path: "/auth"}},
		Feedback: []model.Feedback{{ID: "f1", Path: "/auth", Source: model.FeedbackThumbsOnly, Helpful: &yes, CreatedAt: time.UnixMilli(1200)}},
	}
	views := []db.NewPageView{{At: 900, Path: "/auth", VisitorID: 1}}
	batch := &db.EventBatch{Key: "k", BodyHash: []byte{1}}
	for i, want := range []bool{false, true} {
		n, replayed, err := d.InsertPageViewsOnce(ctx, site, db.NewAnalyticsDict(), views, more, batch)
		if err != nil || n != 6 || replayed != want {
			t.Fatalf("insert %d: stored %d, replayed %v, %v; want 6, %v", i, n, replayed, err, want)
		}
	}
	terms, err := d.SearchTerms(ctx, site, 0, math.MaxInt64, 10, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(terms); got != "[{auth 2 2000} {keys 1 1500}]" {
		t.Errorf("terms %s, want auth twice (last at 2000) then keys once", got)
	}
	if n, err := d.SearchCount(ctx, site, 1000, 2000); err != nil || n != 2 {
		t.Errorf("searches in [1000, 2000): %d, %v; want 2", n, err)
	}
	clicks, err := d.SearchClicks(ctx, site, 0, math.MaxInt64, []string{"auth", "keys"})
	if err != nil || fmt.Sprint(clicks) != "[{auth /auth 1}]" {
		t.Errorf("clicks %v, %v; want one on /auth from auth", clicks, err)
	}
	list, err := d.FeedbackList(ctx, site, db.FeedbackFilter{To: math.MaxInt64}, nil, 10)
	if err != nil || len(list) != 1 || list[0].ID != "f1" || list[0].Status != model.FeedbackPending || *list[0].Helpful != true {
		t.Errorf("feedback %+v, %v; want f1, pending, helpful", list, err)
	}
}

// Feedback lists newest first, filtered by range, source and status, and
// pages by key without skipping or repeating what shares a millisecond.
func TestFeedbackListFilterAndPages(t *testing.T) {
	ctx := context.Background()
	d := testenv.NewDB(t)
	_, site := newSite(t, d)
	yes, no := true, false
	var fb []model.Feedback
	for i := range 7 {
		f := model.Feedback{ID: fmt.Sprintf("f%d", i), Path: "/a", Source: model.FeedbackContextual, Helpful: &yes, Comment: "c",
			CreatedAt: time.UnixMilli(int64(1000 + i/2))} // two a millisecond
		switch i {
		case 2:
			f.Helpful = &no
		case 4:
			f.Source, f.Helpful, f.Code, f.Lang, f.Path = model.FeedbackCodeSnippet, nil, "go run .", "sh", "/b"
		}
		fb = append(fb, f)
	}
	if _, _, err := d.InsertPageViewsOnce(ctx, site, db.NewAnalyticsDict(), nil, &db.Interactions{Feedback: fb}, nil); err != nil {
		t.Fatal(err)
	}
	if f, err := d.SetFeedbackStatus(ctx, site, "f1", model.FeedbackResolved, time.UnixMilli(5000)); err != nil || f.ID != "f1" || f.Status != model.FeedbackResolved || f.Comment != "c" {
		t.Fatalf("set f1's status: %+v, %v", f, err)
	}
	if _, err := d.SetFeedbackStatus(ctx, site, "nope", model.FeedbackResolved, time.Now()); !errors.Is(err, model.ErrFeedbackNotFound) {
		t.Errorf("status of unknown feedback: %v, want ErrFeedbackNotFound", err)
	}
	ids := func(list []model.Feedback) string {
		s := ""
		for _, f := range list {
			s += f.ID + " "
		}
		return s
	}
	all := db.FeedbackFilter{To: math.MaxInt64}
	var pages []string
	var after *db.FeedbackKey
	for {
		list, err := d.FeedbackList(ctx, site, all, after, 3)
		if err != nil {
			t.Fatal(err)
		}
		pages = append(pages, ids(list))
		if len(list) < 3 {
			break
		}
		last := list[len(list)-1]
		after = &db.FeedbackKey{At: last.CreatedAt.UnixMilli(), ID: last.ID}
	}
	if got := fmt.Sprint(pages); got != "[f6 f5 f4  f3 f2 f1  f0 ]" {
		t.Errorf("pages %s, want newest first, three a page", got)
	}
	for _, tc := range []struct {
		f    db.FeedbackFilter
		want string
	}{
		{db.FeedbackFilter{From: 1001, To: 1003}, "f5 f4 f3 f2 "},
		{db.FeedbackFilter{To: math.MaxInt64, Source: model.FeedbackCodeSnippet}, "f4 "},
		{db.FeedbackFilter{To: math.MaxInt64, Statuses: []model.FeedbackStatus{model.FeedbackResolved, model.FeedbackDismissed}}, "f1 "},
	} {
		list, err := d.FeedbackList(ctx, site, tc.f, nil, 10)
		if err != nil || ids(list) != tc.want {
			t.Errorf("%+v: %s, %v; want %s", tc.f, ids(list), err, tc.want)
		}
	}
	list, _ := d.FeedbackList(ctx, site, db.FeedbackFilter{To: math.MaxInt64, Source: model.FeedbackCodeSnippet}, nil, 1)
	if f := list[0]; f.Code != "go run ." || f.Lang != "sh" || f.Filename != "" || f.Helpful != nil || f.Comment != "c" {
		t.Errorf("code snippet's feedback read back as %+v", f)
	}
	list, _ = d.FeedbackList(ctx, site, db.FeedbackFilter{To: math.MaxInt64, Statuses: []model.FeedbackStatus{model.FeedbackResolved}}, nil, 1)
	if !list[0].StatusAt.Equal(time.UnixMilli(5000)) {
		t.Errorf("status changed at %v, want 5000 ms", list[0].StatusAt)
	}
	pagesCounted, err := d.FeedbackByPage(ctx, site, all, 10, 0)
	if err != nil || fmt.Sprint(pagesCounted) != "[{/a 5 1 0 6} {/b 0 0 1 1}]" {
		t.Errorf("by page %v, %v; want /a 5 up 1 down of 6, /b one code snippet", pagesCounted, err)
	}
	counts, err := d.FeedbackStatusCounts(ctx, site, all)
	if err != nil || counts[model.FeedbackPending] != 6 || counts[model.FeedbackResolved] != 1 {
		t.Errorf("status counts %v, %v; want 6 pending, 1 resolved", counts, err)
	}
}
