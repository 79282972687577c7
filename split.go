package sqlgym

import (
	"crypto/sha256"
	"encoding/binary"
)

// InHoldout reports whether the task id falls in the held-out split for the
// given salt and fraction. It hashes salt+id with SHA-256 and compares the
// first 8 bytes, read as a fraction of 2^64, with frac: each task's split
// depends on its own id alone, so adding tasks never moves an existing task
// from one split to the other.
func InHoldout(id, salt string, frac float64) bool {
	if frac <= 0 {
		return false
	}
	if frac >= 1 {
		return true
	}
	h := sha256.Sum256([]byte(salt + id))
	u := binary.BigEndian.Uint64(h[:8])
	return float64(u)/(1<<64) < frac
}

// AssignSplits sets each task's Split by InHoldout and returns how many
// landed in each split.
func AssignSplits(tasks []Task, salt string, frac float64) (train, holdout int) {
	return AssignSplitGroups(tasks, nil, salt, frac)
}

// AssignSplitGroups sets each task's Split so that tasks in one group
// always share a split, and returns how many landed in each. groups[i]
// names task i's group; "" (or a short slice) leaves the task on its own. A group is placed by
// InHoldout of the smallest task id in it, so a task alone (and the
// smallest member of every group) lands where AssignSplits puts it: grouping
// moves only the other members of a group, to their group's split. Adding a
// task moves nothing unless it joins a group with an id smaller than the
// group's, which then follows the new smallest id.
func AssignSplitGroups(tasks []Task, groups []string, salt string, frac float64) (train, holdout int) {
	group := func(i int) string {
		if i < len(groups) {
			return groups[i]
		}
		return ""
	}
	first := map[string]string{} // group -> smallest id
	for i := range tasks {
		if g := group(i); g != "" {
			if id, ok := first[g]; !ok || tasks[i].ID < id {
				first[g] = tasks[i].ID
			}
		}
	}
	for i := range tasks {
		id := tasks[i].ID
		if g := group(i); g != "" {
			id = first[g]
		}
		if InHoldout(id, salt, frac) {
			tasks[i].Split = SplitHoldout
			holdout++
		} else {
			tasks[i].Split = SplitTrain
			train++
		}
	}
	return train, holdout
}
