package tasks

import (
	"testing"
	"time"

	"github.com/hibiken/asynq"
)

func TestWebhookRetriesSpanAboutADay(t *testing.T) {
	task := asynq.NewTask(TypeWebhookDeliver, nil)
	var total time.Duration
	for n := range WebhookRetries {
		d := retryDelay(n, nil, task)
		if n > 0 && d < retryDelay(n-1, nil, task)*9/10 {
			t.Fatalf("delay %d = %s shrank", n, d)
		}
		total += d
	}
	if total < 22*time.Hour || total > 30*time.Hour {
		t.Fatalf("%d retries span %s, want about a day", WebhookRetries, total)
	}
}

func TestAgentRunTaskIDNamesTheRun(t *testing.T) {
	a := AgentRun{JobID: "j", Turn: 2, Recovery: 1}
	if a.TaskID() == (AgentRun{JobID: "j", Turn: 2}).TaskID() || a.TaskID() == (AgentRun{JobID: "j", Turn: 3, Recovery: 1}).TaskID() {
		t.Fatal("different runs share a task id")
	}
	task, err := NewAgentRunTask(a, time.Minute)
	if err != nil || task.Type() != TypeAgentRun {
		t.Fatalf("task = %v, %v", task, err)
	}
}
