package gen

// country is where a customer lives: its cities and the names common there,
// so that a customer's name, city and country agree with one another.
type country struct {
	name      string
	customers int // how many customers live there
	cities    []string
	first     []string
	last      []string
	carriers  []string // who delivers there
}

// countries in a fixed order; customers add up to Customers.
var countries = []country{
	{"United States", 24,
		[]string{"New York", "Chicago", "Houston", "Seattle", "Boston", "Austin", "Denver", "Atlanta"},
		[]string{"James", "Emily", "Michael", "Sarah", "David", "Jessica", "Daniel", "Ashley", "Ryan", "Megan", "Tyler", "Lauren"},
		[]string{"Smith", "Johnson", "Williams", "Brown", "Miller", "Davis", "Wilson", "Anderson", "Moore", "Clark"},
		[]string{"UPS", "FedEx", "USPS"}},
	{"United Kingdom", 14,
		[]string{"London", "Manchester", "Leeds", "Bristol", "Edinburgh", "Glasgow"},
		[]string{"Oliver", "Amelia", "George", "Isla", "Harry", "Poppy", "Jack", "Freya", "Charlie", "Evie"},
		[]string{"Jones", "Taylor", "Evans", "Thomas", "Roberts", "Walker", "Wright", "Hughes"},
		[]string{"Royal Mail", "DHL", "UPS"}},
	{"Germany", 12,
		[]string{"Berlin", "Munich", "Hamburg", "Cologne", "Frankfurt", "Leipzig"},
		[]string{"Lukas", "Anna", "Jonas", "Lea", "Felix", "Hannah", "Paul", "Lena", "Tim", "Sophie"},
		[]string{"Müller", "Schmidt", "Schneider", "Fischer", "Weber", "Becker", "Hoffmann", "Wagner"},
		[]string{"DHL", "UPS"}},
	{"France", 10,
		[]string{"Paris", "Lyon", "Marseille", "Toulouse", "Nantes", "Lille"},
		[]string{"Camille", "Louis", "Léa", "Hugo", "Chloé", "Lucas", "Manon", "Théo", "Inès", "Jules"},
		[]string{"Martin", "Bernard", "Dubois", "Moreau", "Laurent", "Lefèvre", "Girard", "Fournier"},
		[]string{"La Poste", "DHL", "UPS"}},
	{"Spain", 8,
		[]string{"Madrid", "Barcelona", "Valencia", "Seville", "Bilbao"},
		[]string{"Lucía", "Javier", "Carmen", "Pablo", "Elena", "Sergio", "Laura", "Alejandro"},
		[]string{"Rodríguez", "Fernández", "López", "Sánchez", "Pérez", "Gómez", "Ruiz"},
		[]string{"DHL", "UPS"}},
	{"Italy", 7,
		[]string{"Rome", "Milan", "Naples", "Turin", "Bologna"},
		[]string{"Giulia", "Marco", "Francesca", "Luca", "Chiara", "Matteo", "Sara"},
		[]string{"Rossi", "Russo", "Ferrari", "Esposito", "Bianchi", "Romano", "Colombo"},
		[]string{"DHL", "UPS"}},
	{"Canada", 9,
		[]string{"Toronto", "Vancouver", "Montreal", "Calgary", "Ottawa"},
		[]string{"Liam", "Olivia", "Noah", "Emma", "Ethan", "Chloe", "Logan", "Ava"},
		[]string{"Tremblay", "Roy", "Campbell", "MacDonald", "Gagnon", "Wilson", "Martin"},
		[]string{"Canada Post", "UPS", "FedEx"}},
	{"Mexico", 6,
		[]string{"Mexico City", "Guadalajara", "Monterrey", "Puebla"},
		[]string{"José", "Sofía", "Diego", "Valentina", "Carlos", "Ximena"},
		[]string{"Hernández", "Martínez", "González", "Ramírez", "Flores", "Torres"},
		[]string{"DHL", "FedEx"}},
	{"Brazil", 6,
		[]string{"São Paulo", "Rio de Janeiro", "Belo Horizonte", "Curitiba"},
		[]string{"Ana", "João", "Pedro", "Beatriz", "Gabriel", "Larissa"},
		[]string{"Silva", "Santos", "Oliveira", "Souza", "Costa", "Pereira"},
		[]string{"DHL", "FedEx"}},
	{"Japan", 6,
		[]string{"Tokyo", "Osaka", "Yokohama", "Kyoto", "Sapporo"},
		[]string{"Haruto", "Yui", "Sota", "Hina", "Ren", "Aoi"},
		[]string{"Sato", "Suzuki", "Takahashi", "Tanaka", "Watanabe", "Ito"},
		[]string{"DHL", "FedEx"}},
	{"Australia", 7,
		[]string{"Sydney", "Melbourne", "Brisbane", "Perth", "Adelaide"},
		[]string{"Jack", "Charlotte", "William", "Mia", "Lachlan", "Zoe", "Cooper"},
		[]string{"Smith", "Jones", "Williams", "Kelly", "Nguyen", "Mitchell"},
		[]string{"DHL", "FedEx"}},
	{"India", 6,
		[]string{"Mumbai", "Bengaluru", "Delhi", "Chennai", "Pune"},
		[]string{"Aarav", "Priya", "Rohan", "Ananya", "Vihaan", "Diya"},
		[]string{"Sharma", "Patel", "Singh", "Iyer", "Reddy", "Gupta"},
		[]string{"DHL", "FedEx"}},
	{"Ireland", 5,
		[]string{"Dublin", "Cork", "Galway", "Limerick"},
		[]string{"Seán", "Aoife", "Ciarán", "Niamh", "Conor", "Saoirse"},
		[]string{"Murphy", "O'Brien", "Kelly", "Walsh", "O'Sullivan", "Byrne"},
		[]string{"DHL", "UPS"}},
}

// Deliberate duplicates: two different customers share each of these full
// names (one per listed country), so a query that groups by name merges
// people who are not the same.
type namesake struct{ first, last, country, city string }

var namesakes = []namesake{
	{"Maria", "Garcia", "Spain", "Madrid"},
	{"Maria", "Garcia", "United States", "Houston"},
	{"James", "Smith", "United States", "Chicago"},
	{"James", "Smith", "United Kingdom", "Manchester"},
}

// emailDomains are reserved names (RFC 2606), so no address here can reach
// a real mailbox.
var emailDomains = []string{"example.com", "example.net", "example.org", "mail.example", "inbox.example"}

// asciiFold turns the accented letters used above into plain ASCII for
// e-mail addresses.
var asciiFold = map[rune]string{
	'á': "a", 'à': "a", 'ã': "a", 'â': "a", 'é': "e", 'è': "e", 'ê': "e", 'í': "i",
	'ó': "o", 'ô': "o", 'ú': "u", 'ü': "ue", 'ö': "oe", 'ä': "ae", 'ç': "c", 'ñ': "n",
	'Á': "a", 'É': "e", 'Í': "i", 'Ó': "o", 'Ú': "u", 'Ü': "ue", 'Ö': "oe", 'Ä': "ae",
	'\'': "",
}
