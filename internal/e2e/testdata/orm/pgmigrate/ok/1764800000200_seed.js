// node-pg-migrate: data through pgm.sql.
export const up = (pgm) => {
  pgm.sql("INSERT INTO authors (name) VALUES ('ada'), ('grace')");
  pgm.sql("INSERT INTO posts (author_id, title, score, tags, meta) SELECT id, 'hello from ' || name, 1.5, ARRAY['intro'], '{\"lang\": \"en\"}' FROM authors");
};

export const down = (pgm) => {
  pgm.sql('DELETE FROM posts');
  pgm.sql('DELETE FROM authors');
};
