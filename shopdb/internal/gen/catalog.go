package gen

// category is one row of categories; parent is 0 for a top-level one.
type category struct {
	id     int
	name   string
	parent int
}

// categories: parents come before their children, so rows can be inserted
// level by level (DuckDB checks a self-reference against rows already in
// the table, not against rows of the same INSERT).
var categories = []category{
	{1, "Electronics", 0},
	{2, "Home & Kitchen", 0},
	{3, "Books", 0},
	{4, "Clothing", 0},
	{5, "Sports & Outdoors", 0},
	{6, "Toys & Games", 0},
	{7, "Beauty & Personal Care", 0},
	{8, "Phones & Accessories", 1},
	{9, "Computers", 1},
	{10, "Audio", 1},
	{11, "Cookware", 2},
}

// item is a product in the catalogue. Prices are in cents; many end in .99
// and several products share a price on purpose (ties in ORDER BY price).
// popularity weights how often it is ordered.
type item struct {
	category   int
	name       string
	price      int
	popularity int
}

var catalogue = []item{
	{8, "iPhone case", 1999, 9},
	{8, "USB-C Charger 30W", 2499, 8},
	{8, "Wireless Charging Pad", 2999, 5},
	{8, "Screen Protector (2-pack)", 999, 9},
	{8, "Phone Stand", 1499, 4},
	{8, "Power Bank 10000mAh", 3499, 6},
	{8, "USB-C Cable 2m", 999, 8},
	{9, "Mechanical Keyboard", 8999, 4},
	{9, "Wireless Mouse", 2499, 7},
	{9, "27-inch Monitor", 24900, 2},
	{9, "Laptop Stand", 3999, 3},
	{9, "USB-C Hub", 4500, 4},
	{9, "External SSD 1TB", 10999, 3},
	{9, "Webcam 1080p", 4999, 3},
	{10, "Noise-Cancelling Headphones", 19999, 3},
	{10, "Bluetooth Speaker", 5999, 4},
	{10, "Wireless Earbuds", 7999, 6},
	{10, "USB Microphone", 6950, 2},
	{1, "eReader", 12999, 3},
	{1, "Smart Plug (2-pack)", 2999, 4},
	{1, "AA Batteries (8-pack)", 899, 6},
	{11, "Cast Iron Skillet", 3999, 4},
	{11, "Nonstick Frying Pan", 2999, 5},
	{11, "Chef's Knife", 4999, 3},
	{11, "Dutch Oven 5.5qt", 7999, 2},
	{11, "Bamboo Cutting Board", 1999, 5},
	{2, "French Press", 2999, 4},
	{2, "Electric Kettle", 3999, 4},
	{2, "Coffee Grinder", 4500, 3},
	{2, "Scented Candle", 1250, 6},
	{2, "Throw Blanket", 3499, 3},
	{2, "Desk Lamp", 2999, 3},
	{2, "Glass Storage Containers (10-pack)", 2450, 3},
	{3, "SQL for Beginners", 2999, 4},
	{3, "Database Design Basics", 3999, 2},
	{3, "The Quiet Harbor", 1499, 4},
	{3, "Midnight in Lisbon", 1499, 3},
	{3, "A Field Guide to Garden Birds", 1999, 2},
	{3, "Cooking with Herbs", 2250, 3},
	{3, "The Last Lighthouse Keeper", 999, 4},
	{4, "Cotton T-Shirt", 1500, 8},
	{4, "Denim Jacket", 6999, 2},
	{4, "Wool Socks (3-pack)", 1999, 6},
	{4, "Rain Jacket", 8999, 2},
	{4, "Running Shorts", 2499, 4},
	{4, "Hooded Sweatshirt", 4500, 4},
	{4, "Baseball Cap", 1999, 3},
	{5, "Yoga Mat", 2999, 5},
	{5, "Camping Tent (2-person)", 12999, 2},
	{5, "Water Bottle 750ml", 1999, 7},
	{5, "Hiking Backpack 30L", 7499, 2},
	{5, "Resistance Bands", 1499, 4},
	{5, "Tennis Balls (3-pack)", 599, 5},
	{5, "Cycling Gloves", 2499, 2},
	{6, "Jigsaw Puzzle 1000 pieces", 1999, 4},
	{6, "Board Game: Trade Routes", 3999, 3},
	{6, "Building Blocks Set", 4999, 3},
	{6, "Plush Bear", 1500, 4},
	{6, "Card Game: Night Owls", 1250, 3},
	{6, "RC Car", 5999, 2},
	{7, "Face Moisturizer", 2499, 4},
	{7, "Lip Balm (3-pack)", 699, 5},
	{7, "Shampoo 500ml", 1099, 4},
	{7, "Sunscreen SPF 50", 1599, 4},
	{7, "hand cream", 899, 3},
	{7, "Electric Toothbrush", 4999, 2},
	{7, "Beard Trimmer", 3999, 1},
	{2, "Wall Clock", 2999, 1},
	{6, "Wooden Train Set", 4500, 1},
	{8, "MagSafe Wallet", 3999, 2},
}

// priceSteps are how far an older list price differed from today's, for the
// products whose price changed during the two years.
var priceSteps = []int{-500, -300, -200, 200, 300, 500}
