package harness

import "encoding/json"

// MetaSubscriptionID is the `_meta` key naming the subscriptions/listen stream a notification
// was delivered on (2026-07-28 schema, NotificationMetaObject): the JSON-RPC id of the listen
// request.
const MetaSubscriptionID = "io.modelcontextprotocol/subscriptionId"

// Correlation is how the server messages that accompany a request name it on a connection
// several requests share: ID is the IDKey of the request's id (a subscription's notifications
// carry it as their subscriptionId) and ProgressToken the IDKey of the progressToken the request
// asked for in its `_meta` ("" when none). A frame that names neither belongs to no request:
// which request happens to be pending when it arrives says nothing about it.
type Correlation struct {
	ID            string
	ProgressToken string
}

// CorrelationOf returns the Correlation of the request raw whose id has IDKey key.
func CorrelationOf(raw []byte, key string) Correlation {
	c := Correlation{ID: key}
	var m struct {
		Params struct {
			Meta struct {
				ProgressToken json.RawMessage `json:"progressToken"`
			} `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(raw, &m) == nil {
		c.ProgressToken = nullKey(m.Params.Meta.ProgressToken)
	}
	return c
}

// Names reports whether msg, a server message that is not a response, names the request of c:
// a progress notification with c's progressToken, or a notification whose `_meta` subscriptionId
// is c's id.
func (c Correlation) Names(msg *Message) bool {
	if msg == nil || len(msg.Params) == 0 {
		return false
	}
	var p struct {
		ProgressToken json.RawMessage            `json:"progressToken"`
		Meta          map[string]json.RawMessage `json:"_meta"`
	}
	if json.Unmarshal(msg.Params, &p) != nil {
		return false
	}
	if c.ProgressToken != "" && nullKey(p.ProgressToken) == c.ProgressToken {
		return true
	}
	return c.ID != "" && nullKey(p.Meta[MetaSubscriptionID]) == c.ID
}

// nullKey is IDKey with JSON null read as absent.
func nullKey(raw json.RawMessage) string {
	k := IDKey(raw)
	if k == "null" {
		return ""
	}
	return k
}
