package model

import (
	"errors"
)

// Sentinel errors callers match with errors.Is.
var (
	ErrNotFound = errors.New("not found")
	ErrConflict = errors.New("conflict")
)
