-- UPDATE … FROM … RETURNING *: the target's new values, then every FROM
-- item's columns in FROM order
create table acct (id int primary key, bal int);
create table delta (acct_id int, amt int);
create table tag (acct_id int, label text);
insert into acct values (1, 10), (2, 20), (3, 30);
insert into delta values (1, 5), (3, -1);
insert into tag values (1, 'one'), (3, 'three');
update acct set bal = bal + d.amt from delta d where d.acct_id = acct.id returning *;
update acct a set bal = a.bal * 2 from delta d join tag t on t.acct_id = d.acct_id where d.acct_id = a.id returning *;
update acct set bal = 0 from (select 2 as k) s where acct.id = s.k returning *;
update acct set bal = bal + 1 from delta, tag where delta.acct_id = acct.id and tag.acct_id = acct.id returning acct.*, tag.label;
select * from acct order by id;
