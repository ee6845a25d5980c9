// node-pg-migrate: authors and posts with keys, defaults, a check and an index.
export const up = (pgm) => {
  pgm.createTable('authors', {
    id: 'id',
    name: { type: 'varchar(80)', notNull: true, unique: true },
    bio: { type: 'text', comment: 'short biography' },
    joined: { type: 'timestamptz', notNull: true, default: pgm.func('current_timestamp') },
  });
  pgm.createTable('posts', {
    id: 'id',
    author_id: { type: 'integer', notNull: true, references: 'authors', onDelete: 'CASCADE' },
    title: { type: 'text', notNull: true },
    score: { type: 'numeric(6,2)', notNull: true, default: 0, check: 'score >= 0' },
    tags: { type: 'text[]', default: pgm.func("'{}'::text[]") },
    meta: { type: 'jsonb', default: '{}' },
  });
  pgm.createIndex('posts', ['author_id', 'title'], { name: 'posts_author_title_idx' });
};

export const down = (pgm) => {
  pgm.dropTable('posts');
  pgm.dropTable('authors');
};
