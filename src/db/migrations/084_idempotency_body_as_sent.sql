-- An Idempotency-Key's stored response as the service sent it. jsonb reordered its keys (shorter
-- keys first), so a replay's body came back equal as JSON but in another order than the first
-- answer; `json` keeps the text, and a replay parses and writes it in the same order (decisions
-- §4: "the stored body back"). The table holds 24 hours of keys, so the rewrite is short.
alter table idempotency_keys alter column response_body type json using response_body::json;
