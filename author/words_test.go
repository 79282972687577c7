package author

import (
	"strings"
	"testing"
)

func TestWords(t *testing.T) {
	for in, want := range map[string]string{
		"order_date": "order date", "songReleaseYear": "song release year", "HTTPCode": "http code",
		"Name": "name", "countrycode": "countrycode", "stuID": "stu id", "LifeExpectancy": "life expectancy",
	} {
		if got := words(in); got != want {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
	for sing, pl := range map[string]string{"order item": "order items", "category": "categories", "status": "statuses",
		"box": "boxes", "person": "people", "country": "countries", "day": "days"} {
		if got := plural(sing); got != pl {
			t.Errorf("plural(%q) = %q, want %q", sing, got, pl)
		}
		if got := singular(pl); got != sing {
			t.Errorf("singular(%q) = %q, want %q", pl, got, sing)
		}
	}
	if article("unit price") != "a" || article("order") != "an" || article("price") != "a" {
		t.Error("article")
	}
}

func TestNormalizeQuestionAndTaskID(t *testing.T) {
	if a, b := NormalizeQuestion("How many  orders, in 2024?"), NormalizeQuestion("how many orders in 2024"); a != b {
		t.Fatalf("%q != %q", a, b)
	}
	if NormalizeQuestion("Orders in 2023?") == NormalizeQuestion("Orders in 2024?") {
		t.Fatal("different years normalised equal")
	}
	id := TaskID("shop", LevelJoin, "SELECT 1")
	if id != TaskID("shop", LevelJoin, "select  1;") || !strings.HasPrefix(id, "shop_join_") || len(id) != len("shop_join_")+8 {
		t.Fatalf("id %q", id)
	}
	if id == TaskID("shop", LevelJoin, "SELECT 2") {
		t.Fatal("different SQL, same id")
	}
}
