package main

import "github.com/gorilla/mux"

// agentRoutes mounts the agent job API (CONTRACT §2) under /v2/agent/{projectId}.
func (a *app) agentRoutes(r *mux.Router) {}
