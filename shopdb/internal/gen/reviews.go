package gen

// reviewPhrases by star rating (index 0 is one star). A review's text is one
// or two of them; some carry apostrophes so that quoting is exercised.
var reviewPhrases = [5][]string{
	{
		"Broke after two weeks.",
		"Not as described.",
		"Arrived damaged and support never answered.",
		"Waste of money.",
		"Stopped working after a few days.",
		"Would not buy again.",
	},
	{
		"Cheap materials.",
		"Smaller than expected.",
		"Does the job, barely.",
		"It's okay but overpriced.",
		"The colour doesn't match the photos.",
	},
	{
		"Average quality for the price.",
		"Fine, nothing special.",
		"Does what it says.",
		"Delivery was slow but the product is fine.",
		"Decent, though the instructions were confusing.",
	},
	{
		"Good value.",
		"Works well.",
		"Nice quality, fast delivery.",
		"Happy with it so far.",
		"Would buy again.",
		"Solid product, minor flaws.",
	},
	{
		"Excellent!",
		"Exactly what I needed.",
		"Great quality, highly recommend.",
		"Love it.",
		"Better than I expected.",
		"Perfect gift, my sister loved it.",
		"Five stars, no complaints.",
	},
}

// ratingWeights: reviews lean positive, with a bump at one star, the usual
// J shape of shop reviews.
var ratingWeights = []int{10, 7, 12, 26, 45}
