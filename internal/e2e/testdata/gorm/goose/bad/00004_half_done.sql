-- +goose Up
CREATE TABLE half_done (id int PRIMARY KEY);
INSERT INTO orders (user_id, amount) VALUES (1, -5);

-- +goose Down
DROP TABLE half_done;
