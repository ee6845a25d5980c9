-- +goose Up
INSERT INTO users (email) VALUES ('a@example.com'), ('b@example.com');
INSERT INTO orders (user_id, amount, note)
SELECT id, 10.50 * id, jsonb_build_object('by', email) FROM users;
ALTER TABLE users ADD COLUMN nickname varchar(40);

-- +goose Down
ALTER TABLE users DROP COLUMN nickname;
DELETE FROM orders;
DELETE FROM users;
