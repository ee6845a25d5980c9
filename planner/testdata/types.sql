-- Differential script: defaults, serial columns, casts to column types,
-- subqueries in DML, and statement errors.
create table item (id serial primary key, sku varchar(8) not null unique, price numeric(10,2) default 0, qty int4 default 1, tags text, added date default '2024-01-01');
insert into item (sku, price) values ('a1', 1.005), ('b2', '2.5') returning id, sku, price, qty, added;
insert into item (sku) values ('c3') returning *;
insert into item (sku, qty) select 'd' || g, g from generate_series(1, 3) g returning id, sku, qty;
insert into item (sku, price, qty) values ('e5', 3, 2.6) returning price, qty;
insert into item (sku) values ('toolongsku');
insert into item (sku, qty) values ('f6', 'x');
insert into item (sku, qty) values ('f6', 1, 2);
insert into item (sku, qty, price) values ('f6', 1);
insert into item values (default, 'g7', default, default, 'x', default) returning id, sku, price, qty, tags, added;
begin;
insert into item (sku) values ('h8') returning id;
rollback;
insert into item (sku) values ('i9') returning id;
insert into item (sku) values ('a1') on conflict on constraint item_sku_key do update set qty = item.qty + 10 returning id, qty;
update item set price = (select max(price) from item) + 1 where sku = 'c3' returning sku, price;
update item set qty = qty * 2 where id in (select id from item where sku like 'd%') returning sku, qty;
delete from item where price = (select min(price) from item) returning sku;
delete from item where sku not in (select sku from item where qty > 1) returning sku;
select id, sku, price, qty, tags, added from item order by id;
insert into item (sku) values (null);
update item set sku = null where id = 1;
update item set sku = 'a1' where sku = 'e5';
with s as (select 'w' || g as sku from generate_series(1, 2) g) insert into item (sku) select sku from s returning sku;
insert into item (id, sku) values (100, 'z') returning id;
select count(*), sum(qty) from item;
