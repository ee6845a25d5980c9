// node-pg-migrate: a migration that fails half way; its table must not survive.
export const up = (pgm) => {
  pgm.createTable('drafts', { id: 'id', body: 'text' });
  pgm.sql("INSERT INTO posts (author_id, title, score) VALUES (1, 'negative', -1)");
};

export const down = (pgm) => {
  pgm.dropTable('drafts');
};
