package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"sync"
)

// Policy is a scripted stand-in for a model: what it replies, turn by turn.
// It exists to test the suite's grading, not the agent's quality.
type Policy string

const (
	// Solver replays each task's solution.
	Solver Policy = "solver"
	// Idle changes nothing and says it is done.
	Idle Policy = "idle"
	// Wrong replays a task's plausible but wrong solution in its first turn.
	Wrong Policy = "wrong"
)

// scripted serves OpenAI's chat completions API and answers each request
// with the next reply of the current turn's script, then "Done." until the
// next turn. Prompt tokens are reported as the request's bytes / 4, the
// usual estimate, so the suite's token figures follow what is sent.
type scripted struct {
	srv     *httptest.Server
	mu      sync.Mutex
	replies [][]Call
	n       int // calls so far, for tool call ids
}

func newScripted() *scripted {
	s := &scripted{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", s.complete)
	s.srv = httptest.NewServer(mux)
	return s
}

func (s *scripted) Close() { s.srv.Close() }

// model is the endpoint as a suite's Options name it.
func (s *scripted) model() Model {
	return Model{Provider: "openai", BaseURL: s.srv.URL + "/v1", APIKey: "scripted", Name: "scripted"}
}

// turn sets the replies for the turn that starts.
func (s *scripted) turn(replies [][]Call) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies = replies
}

func (s *scripted) complete(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil || !json.Valid(body) {
		http.Error(w, `{"error":{"message":"the body is not JSON","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	var reply []Call
	if len(s.replies) > 0 {
		reply, s.replies = s.replies[0], s.replies[1:]
	}
	msg := map[string]any{"role": "assistant", "content": "Done.", "refusal": nil}
	finish, out := "stop", 2
	if len(reply) > 0 {
		var calls []map[string]any
		for _, c := range reply {
			s.n++
			args := string(c.arguments())
			out += len(args) / 4
			calls = append(calls, map[string]any{"id": fmt.Sprintf("call_%d", s.n), "type": "function",
				"function": map[string]any{"name": c.Tool, "arguments": args}})
		}
		msg["content"], msg["tool_calls"], finish = nil, calls, "tool_calls"
	}
	s.mu.Unlock()
	prompt := len(body) / 4
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{ // the client reads it or has gone
		"id": "chatcmpl-scripted", "object": "chat.completion", "created": 1700000000, "model": "scripted",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish, "logprobs": nil}},
		"usage":   map[string]any{"prompt_tokens": prompt, "completion_tokens": out, "total_tokens": prompt + out},
	})
}

// RunScripted runs task with policy p standing in for the model.
func RunScripted(ctx context.Context, fsys fs.FS, task Task, p Policy, opts Options) (Outcome, error) {
	s := newScripted()
	defer s.Close()
	opts.Model = s.model()
	return run(ctx, fsys, task, opts, func(turn int) {
		switch {
		case p == Solver:
			s.turn(task.Turns[turn].Solution)
		case p == Wrong && turn == 0:
			s.turn(task.Wrong)
		default:
			s.turn(nil)
		}
	})
}
