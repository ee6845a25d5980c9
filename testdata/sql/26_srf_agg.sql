-- set-returning functions over aggregated rows; aggregates inside ARRAY[], ROW(), IS DISTINCT FROM and row sublinks; window result typmods
CREATE TABLE orders (id int PRIMARY KEY, user_id int, total numeric(10,2), created_at timestamptz);
INSERT INTO orders VALUES (1, 1, 10.5, '2024-01-05 10:00+00'), (2, 2, 20, '2024-02-10 11:00+00'), (3, 1, 5.25, '2024-04-11 12:00+00');
SELECT generate_series(date_trunc('month', min(created_at)), date_trunc('month', max(created_at)), interval '1 month') FROM orders;
SELECT user_id, unnest(array_agg(id ORDER BY id)) FROM orders GROUP BY user_id ORDER BY 1, 2;
SELECT user_id, generate_series(1, count(*)::int) AS n, sum(total) FROM orders GROUP BY user_id HAVING count(*) > 0 ORDER BY 1, 2;
SELECT unnest(ARRAY[min(id), max(id)]) FROM orders;
SELECT generate_series(1, max(id)) FROM orders WHERE false;
SELECT user_id, generate_series(1, 2) FROM orders GROUP BY user_id ORDER BY 1, 2;
SELECT id, lag(total) OVER (ORDER BY id), lead(total, 1, 0::numeric) OVER (ORDER BY id), first_value(total) OVER (ORDER BY id), nth_value(total, 2) OVER (ORDER BY id) FROM orders ORDER BY id;
-- unsupported
SELECT generate_series(1, 2), row_number() OVER () FROM orders;
SELECT unnest(ARRAY[1,2]), user_id FROM orders GROUP BY user_id ORDER BY 2, 1;
SELECT ARRAY[min(id), max(id)], sum(total) IS DISTINCT FROM 0, (ROW(min(id), max(id))).f2, row_to_json(ROW(count(*))) FROM orders;
SELECT user_id FROM orders GROUP BY user_id HAVING (min(id), max(id)) IN (SELECT 1, 3) ORDER BY 1;
SELECT user_id, ARRAY[user_id, count(*)::int] FROM orders GROUP BY user_id ORDER BY 1;
