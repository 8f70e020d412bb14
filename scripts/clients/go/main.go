// Command clientcheck sends a page, an item and a bad request through the Go client oapi-codegen
// generates from the served OpenAPI document (client.gen.go beside it, written by
// scripts/clients.sh), and fails unless each parses into the model the document names.
package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"reflect"
	"strings"
	"time"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: clientcheck BASE_URL")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := check(ctx, os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "go client:", err)
		os.Exit(1)
	}
	fmt.Println("go client: a page, an item and a problem parsed")
}

func check(ctx context.Context, base string) error {
	client, err := NewClientWithResponses(base, WithHTTPClient(&http.Client{Timeout: 10 * time.Second}))
	if err != nil {
		return err
	}
	perPage := 3
	page, err := body(ctx, client, GetResourceParams{ResourceName: "items", PerPage: &perPage}, Resource.AsItemsPage)
	if err != nil {
		return fmt.Errorf("items: %w", err)
	}
	if len(page.Data) != perPage || page.Pagination.PerPage != perPage || page.Pagination.Total < perPage {
		return fmt.Errorf("items: %d items, pagination %+v", len(page.Data), page.Pagination)
	}
	first := page.Data[0]
	if first.Id == "" || first.Rights.License == "" {
		return fmt.Errorf("items: first item %+v lacks its id or licence id", first)
	}

	item, err := body(ctx, client, GetResourceParams{ResourceName: "item", Id: &first.Id}, Resource.AsItemDocument)
	if err != nil {
		return fmt.Errorf("item: %w", err)
	}
	if item.Data.Id != first.Id || !reflect.DeepEqual(item.Data.Rights, first.Rights) {
		return fmt.Errorf("item: %s with rights %+v, want %s with %+v", item.Data.Id, item.Data.Rights, first.Id, first.Rights)
	}

	tooMany := 500
	badResp, err := client.GetResourceWithResponse(ctx, &GetResourceParams{ResourceName: "items", PerPage: &tooMany})
	if err != nil {
		return fmt.Errorf("bad request: %w", err)
	}
	problem := badResp.ApplicationproblemJSON400
	if problem == nil {
		return fmt.Errorf("bad request: %d without a problem model: %s", badResp.StatusCode(), badResp.Body)
	}
	var errs []error
	if problem.Status != 400 || problem.Title != "Invalid parameter" || !strings.HasSuffix(problem.Type, "/problems/invalid-parameter") {
		errs = append(errs, fmt.Errorf("status %d, title %q, type %q", problem.Status, problem.Title, problem.Type))
	}
	if len(problem.Errors) != 1 || problem.Errors[0].Parameter != "per_page" || problem.Errors[0].Value == nil || *problem.Errors[0].Value != "500" {
		errs = append(errs, fmt.Errorf("errors %+v, want per_page's 500 alone", problem.Errors))
	}
	if id := badResp.HTTPResponse.Header.Get("X-Request-Id"); problem.RequestId != id || id == "" {
		errs = append(errs, fmt.Errorf("request_id %q, header %q", problem.RequestId, id))
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bad request: %w", err)
	}
	return nil
}

// body sends a request that must succeed and reads its body as the model as gives.
func body[T any](ctx context.Context, client *ClientWithResponses, params GetResourceParams, as func(Resource) (T, error)) (T, error) {
	var zero T
	resp, err := client.GetResourceWithResponse(ctx, &params)
	if err != nil {
		return zero, err
	}
	if resp.JSON200 == nil {
		return zero, fmt.Errorf("%d without a body model: %s", resp.StatusCode(), resp.Body)
	}
	return as(*resp.JSON200)
}
