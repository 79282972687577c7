package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/sqlgym/sqlgym"
	"github.com/sqlgym/sqlgym/author"
)

func main() {
	dir, _ := os.MkdirTemp("", "au")
	defer os.RemoveAll(dir)
	start := time.Now()
	tasks, cnt, err := author.ShopTasks(context.Background(), dir)
	fmt.Fprintln(os.Stderr, time.Since(start), err)
	b, _ := json.MarshalIndent(cnt, "", " ")
	fmt.Fprintln(os.Stderr, string(b))
	sqlgym.WriteTasks(os.Stdout, tasks)
}
