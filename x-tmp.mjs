import Database from 'better-sqlite3';
const db = new Database(':memory:');
db.exec(`create table collection_members(store_id text not null, collection_id text not null, product_code text not null, sort_key text not null, primary key(store_id, collection_id, product_code));
create index collection_members_order_idx on collection_members(store_id, collection_id, sort_key, product_code);
create index collection_members_product_idx on collection_members(store_id, product_code, collection_id, sort_key);`);
console.log(db.prepare(`explain query plan select store_id, collection_id, product_code, sort_key from collection_members where store_id = ? and product_code in (?, ?, ?)`).all('s','a','b','c'));
