-- GROUP BY ROLLUP / CUBE / GROUPING SETS and GROUPING(): subtotal rows
-- with NULL for the expressions outside their set.
CREATE TABLE sales (id int PRIMARY KEY, region text, product text, yr int, qty int, amount numeric(10,2));
INSERT INTO sales VALUES (1,'east','pen',2023,3,4.50),(2,'east','ink',2023,1,10.00),(3,'west','pen',2023,5,7.50),(4,'west','pen',2024,2,3.00),(5,'east','pen',2024,7,10.50),(6,NULL,'ink',2024,4,40.00),(7,'west',NULL,2024,1,1.00);
SELECT region, sum(qty), count(*) FROM sales GROUP BY ROLLUP (region) ORDER BY region NULLS FIRST, 2;
SELECT region, product, sum(amount), grouping(region, product) FROM sales GROUP BY ROLLUP (region, product) ORDER BY 4, 1, 2;
SELECT region, product, sum(qty), grouping(region), grouping(product) FROM sales GROUP BY CUBE (region, product) ORDER BY 4, 5, 1, 2;
SELECT region, yr, sum(qty) FROM sales GROUP BY GROUPING SETS ((region), (yr), ()) ORDER BY 1, 2, 3;
SELECT region, yr, product, count(*) FROM sales GROUP BY region, ROLLUP (yr, product) ORDER BY 1, 2, 3, 4;
SELECT region, yr, product, count(*) FROM sales GROUP BY GROUPING SETS (region, ROLLUP (yr, product)) ORDER BY 1, 2, 3, 4;
SELECT region, product, yr, sum(qty) FROM sales GROUP BY ROLLUP ((region, product), yr) ORDER BY 1, 2, 3, 4;
SELECT region, sum(qty) FROM sales GROUP BY GROUPING SETS ((), (region), ()) ORDER BY 1, 2;
SELECT region, sum(qty) AS total FROM sales GROUP BY ROLLUP (region) HAVING sum(qty) > 8 ORDER BY 1;
SELECT CASE WHEN grouping(region) = 1 THEN 'all' ELSE region END AS r, sum(amount) FROM sales GROUP BY ROLLUP (region) ORDER BY grouping(region), r;
SELECT upper(region), count(*) FROM sales GROUP BY ROLLUP (upper(region)) ORDER BY 1, 2;
SELECT region, yr, count(*) FROM sales GROUP BY CUBE (1, 2) ORDER BY 1, 2, 3;
SELECT region, grouping(region), count(*) FROM sales GROUP BY region ORDER BY 1;
SELECT count(*), sum(qty) FROM sales WHERE false GROUP BY ROLLUP (region);
SELECT region, count(*) FROM sales WHERE false GROUP BY GROUPING SETS ((region), ());
SELECT DISTINCT region FROM sales GROUP BY ROLLUP (region, product) ORDER BY 1;
SELECT region, array_agg(id ORDER BY id), string_agg(DISTINCT product, ',' ORDER BY product) FROM sales GROUP BY ROLLUP (region) ORDER BY 1;
SELECT yr, region, sum(qty), rank() OVER (PARTITION BY grouping(region) ORDER BY sum(qty) DESC) FROM sales GROUP BY GROUPING SETS ((yr, region), (yr)) ORDER BY 1, 2, 3;
SELECT region, sum(qty) FILTER (WHERE yr = 2024) FROM sales GROUP BY CUBE (region) ORDER BY 1, 2;
SELECT * FROM (SELECT region, product, sum(qty) AS s FROM sales GROUP BY ROLLUP (region, product)) x WHERE product IS NULL ORDER BY 1, 3;
SELECT region, product, count(*) FROM sales GROUP BY GROUPING SETS (region, product, (region, product)) ORDER BY 1, 2, 3;
-- errors
SELECT region, product, count(*) FROM sales GROUP BY ROLLUP (region);
SELECT grouping(product), count(*) FROM sales GROUP BY ROLLUP (region);
SELECT grouping(region) FROM sales;
SELECT id FROM sales WHERE grouping(id) = 0;
SELECT count(*) FROM sales GROUP BY CUBE (id, region, product, yr, qty, amount, id, region, product, yr, qty, amount, id);
SELECT region FROM sales GROUP BY ROLLUP (region, 9);
