package variants

// addByHalves adds parts to accepted the way the generator takes out what
// breaks a gold or loses a kill: a part that fits (fits(accepted+part))
// goes in whole, else each half is tried, down to single parts. more is
// asked before every trial and may count it; false stops the search, and
// the parts not yet tried stay out, which only leaves less in.
func addByHalves[T any](accepted, parts []T, more func() bool, fits func(with []T) (bool, error)) ([]T, error) {
	var try func(part []T) error
	try = func(part []T) error {
		if len(part) == 0 || !more() {
			return nil
		}
		with := append(append([]T(nil), accepted...), part...)
		ok, err := fits(with)
		if err != nil {
			return err
		}
		if ok {
			accepted = with
			return nil
		}
		if len(part) == 1 {
			return nil
		}
		mid := len(part) / 2
		if err := try(part[:mid]); err != nil {
			return err
		}
		return try(part[mid:])
	}
	err := try(parts)
	return accepted, err
}
