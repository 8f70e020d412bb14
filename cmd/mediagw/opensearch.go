package main

import (
	"errors"

	"mediagw/config"
	"mediagw/search"
)

func openOpenSearch(cfg config.Config) (search.Backend, func(), error) {
	return nil, nil, errors.New("TODO")
}
