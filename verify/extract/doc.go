// Package extract finds the SQL to run in a model's reply. The rules, in
// the order they are tried, are described in docs/extraction.md: reasoning
// is dropped, a reply cut off by the token limit is truncated whatever it
// holds, then the last ```sql fence wins, then the last other fence that
// looks like SQL, then the last <sql>, <answer> or <solution> tag, then a
// bare SELECT or WITH statement. Nothing found is no_query.
//
// Extraction never looks at a database and never fails: every reply gets a
// Result. A reasoning field that an API returns apart from the reply is not
// part of the completion and must not be passed in.
package extract
