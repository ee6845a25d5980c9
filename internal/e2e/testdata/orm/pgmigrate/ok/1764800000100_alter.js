// node-pg-migrate: columns added, renamed and retyped; a unique constraint; a comment.
export const up = (pgm) => {
  pgm.addColumn('posts', { published: { type: 'boolean', notNull: true, default: false } });
  pgm.renameColumn('authors', 'bio', 'about');
  pgm.alterColumn('posts', 'title', { type: 'varchar(200)' });
  pgm.addConstraint('posts', 'posts_title_per_author', { unique: ['author_id', 'title'] });
  pgm.sql("COMMENT ON TABLE posts IS 'blog posts'");
};

export const down = (pgm) => {
  pgm.sql('COMMENT ON TABLE posts IS NULL');
  pgm.dropConstraint('posts', 'posts_title_per_author');
  pgm.alterColumn('posts', 'title', { type: 'text' });
  pgm.renameColumn('authors', 'about', 'bio');
  pgm.dropColumn('posts', 'published');
};
