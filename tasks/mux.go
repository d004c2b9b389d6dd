package tasks

import "github.com/hibiken/asynq"

// NewServeMux routes each task type to what runs it. A nil runner leaves
// agent:run unhandled: pair it with a worker that does not read the agent
// queue (NewWorker's queues), so jobs wait instead of failing.
func NewServeMux(runs JobRunner, hooks WebhookDeliverer) *asynq.ServeMux {
	mux := asynq.NewServeMux()
	if runs != nil {
		mux.Handle(TypeAgentRun, handleAgentRun(runs))
	}
	if hooks != nil {
		mux.Handle(TypeWebhookDeliver, handleWebhookDeliver(hooks))
	}
	return mux
}
