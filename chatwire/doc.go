// Package chatwire is a chat message in OpenAI's layout (role, content,
// tool_calls with a function's name and arguments, tool_call_id, name):
// the episode API's messages (serve) and the rows of curated training sets
// (curate) are written in it. The two write a tool call's arguments
// differently, and keep doing so: the episode API sends them as a JSON
// string, as OpenAI's chat completions do (ArgumentsString); the training
// sets keep the object the model wrote, so chat templates that iterate over
// the arguments see an object (ArgumentsObject). The model client's own
// request and response bodies stay in package model.
package chatwire
