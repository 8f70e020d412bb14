package main

import (
	"context"
	"errors"
)

func openSearchAdmin(context.Context, *env) (admin, error) {
	return nil, errors.New("TODO opensearch")
}
