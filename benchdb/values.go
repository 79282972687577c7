package benchdb

// The vocabularies rows are drawn from. Order matters: earlier entries are
// drawn more often where a draw is skewed, and changing a list changes
// every generated file.

var firstNames = []string{
	"James", "Maria", "John", "Wei", "Anna", "David", "Fatima", "Michael", "Sofia", "Robert",
	"Li", "Emma", "Mohammed", "Laura", "Daniel", "Yuki", "Sarah", "Carlos", "Olga", "Thomas",
	"Priya", "Luca", "Chloé", "Ahmed", "Hannah", "José", "Mei", "Pierre", "Ingrid", "Kwame",
	"Elena", "Omar", "Grace", "Hiroshi", "Zoë", "Ivan", "Amara", "Lars", "Nadia", "Mateo",
	"Aisha", "Paul", "Sven", "Lucía", "Raj", "Claire", "Jonas", "Amélie", "Tariq", "Noah",
}

var lastNames = []string{
	"Smith", "Garcia", "Wang", "Müller", "Johnson", "Kim", "Brown", "Rossi", "Nguyen", "Jones",
	"Martin", "Silva", "Lee", "Schmidt", "Williams", "Tanaka", "Lefèvre", "Singh", "O'Brien", "Taylor",
	"Kowalski", "Ivanova", "Andersson", "Hernández", "Chen", "Dubois", "Sato", "Khan", "Moore", "Novak",
	"Fischer", "Costa", "Patel", "Jensen", "Wilson", "Ali", "López", "Murphy", "Bianchi", "Yamamoto",
	"D'Angelo", "Hansen", "Okafor", "Clark", "Weber", "Santos", "Nielsen", "Walker", "Young", "Haddad",
}

type weighted struct {
	value  string
	weight int
}

var countries = []weighted{
	{"United States", 28}, {"United Kingdom", 10}, {"Germany", 10}, {"France", 8}, {"Canada", 7},
	{"Spain", 6}, {"Italy", 5}, {"Brazil", 5}, {"Japan", 5}, {"India", 5}, {"Australia", 4},
	{"Mexico", 3}, {"Netherlands", 2}, {"Poland", 1}, {"Sweden", 1},
}

var cities = map[string][]string{
	"United States":  {"New York", "Los Angeles", "Chicago", "Houston", "Seattle", "Boston", "Austin", "Portland"},
	"United Kingdom": {"London", "Manchester", "Bristol", "Leeds", "Glasgow"},
	"Germany":        {"Berlin", "München", "Hamburg", "Köln", "Frankfurt"},
	"France":         {"Paris", "Lyon", "Marseille", "Lille", "Toulouse"},
	"Canada":         {"Toronto", "Montréal", "Vancouver", "London", "Calgary"},
	"Spain":          {"Madrid", "Barcelona", "Valencia", "Sevilla"},
	"Italy":          {"Roma", "Milano", "Napoli", "Torino"},
	"Brazil":         {"São Paulo", "Rio de Janeiro", "Brasília", "Curitiba"},
	"Japan":          {"Tokyo", "Osaka", "Kyoto", "Sapporo"},
	"India":          {"Mumbai", "Delhi", "Bengaluru", "Chennai"},
	"Australia":      {"Sydney", "Melbourne", "Brisbane", "Perth"},
	"Mexico":         {"Ciudad de México", "Guadalajara", "Monterrey"},
	"Netherlands":    {"Amsterdam", "Rotterdam", "Utrecht"},
	"Poland":         {"Warszawa", "Kraków", "Gdańsk"},
	"Sweden":         {"Stockholm", "Göteborg", "Malmö"},
}

var domains = []weighted{
	{"gmail.com", 34}, {"yahoo.com", 14}, {"outlook.com", 14}, {"hotmail.com", 9},
	{"icloud.com", 7}, {"proton.me", 4}, {"web.de", 4}, {"orange.fr", 4}, {"example.org", 10},
}

var segments = []weighted{{"Consumer", 56}, {"Corporate", 29}, {"Home Office", 15}}

// categories carry a typical price in dollars.
var categories = []struct {
	name  string
	price float64
	nouns []string
}{
	{"Electronics", 180, []string{"Headphones", "Speaker", "Charger", "Webcam", "Monitor", "Keyboard", "Mouse", "eReader"}},
	{"Home & Kitchen", 45, []string{"Mug", "Knife Set", "Blender", "Kettle", "Pan", "Chef's Knife", "Cutting Board"}},
	{"Books", 18, []string{"Novel", "Cookbook", "Atlas", "Biography", "Guide", "Notebook"}},
	{"Clothing", 40, []string{"T-Shirt", "Jacket", "Scarf", "Jeans", "Sweater", "Cap"}},
	{"Sports", 60, []string{"Yoga Mat", "Water Bottle", "Dumbbell Set", "Running Shoes", "Backpack"}},
	{"Beauty", 22, []string{"hand cream", "Shampoo", "Lip Balm", "Face Serum", "Gift Set"}},
	{"Toys", 28, []string{"Puzzle", "Board Game", "Plush Bear", "Building Set", "Kite"}},
	{"Garden", 35, []string{"Hose", "Planter", "Seed Kit", "Gloves", "Lantern"}},
	{"Office", 25, []string{"Notebook", "Pen Set", "Desk Lamp", "Stapler", "Backpack"}},
	{"Grocery", 9, []string{"Coffee", "Tea", "Olive Oil", "Chocolate", "Gift Set"}},
	{"Pet Supplies", 24, []string{"Dog Bed", "Cat Toy", "Leash", "Bowl", "Treats"}},
	{"Automotive", 55, []string{"Phone Mount", "Seat Cover", "Charger", "Floor Mats", "Tool Kit"}},
}

var categoryWeights = []int{14, 12, 11, 11, 8, 8, 7, 6, 7, 6, 5, 5}

var adjectives = []string{
	"Classic", "Premium", "Eco", "Compact", "Deluxe", "Smart", "Mini", "Pro", "Travel", "Vintage",
	"Ultra", "Essential", "Organic", "Family", "Urban",
}

var brands = []string{
	"Acme", "Northwind", "Contoso", "Globex", "Initech", "Umbrella", "Stark", "Wayne", "Tyrell", "Hooli",
	"Vandelay", "Soylent", "Cyberdyne", "Aperture", "Monarch", "Oscorp", "Wonka", "Gringotts", "Pied Piper", "Dunder",
}

var channels = []weighted{{"web", 52}, {"app", 28}, {"store", 14}, {"", 6}} // "" is NULL

var methods = []weighted{{"card", 58}, {"paypal", 22}, {"bank_transfer", 9}, {"gift_card", 6}, {"apple_pay", 5}}

var reviewTexts = [6][]string{
	1: {"Broke after a week.", "Not as described.", "Terrible quality, returned it.", "Would not buy again."},
	2: {"Disappointing.", "Smaller than expected.", "Works, barely.", "Arrived damaged."},
	3: {"It's okay.", "Average for the price.", "Does the job.", "Mixed feelings."},
	4: {"Good value.", "Works well.", "Nice, but shipping was slow.", "Happy with it."},
	5: {"Excellent!", "Love it.", "Best purchase this year.", "Exactly what I needed.", "Five stars, would buy again."},
}
