// An ALTER on a table that already has rows in later runs.
exports.up = async function (knex) {
  await knex.schema.alterTable('posts', (t) => {
    t.integer('likes').notNullable().defaultTo(0)
    t.index(['author_id'], 'posts_author_idx')
  })
}

exports.down = async function (knex) {
  await knex.schema.alterTable('posts', (t) => {
    t.dropIndex(['author_id'], 'posts_author_idx')
    t.dropColumn('likes')
  })
}
