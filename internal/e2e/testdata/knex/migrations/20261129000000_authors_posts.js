// Two related tables with serial ids, defaults and a cascading reference.
exports.up = async function (knex) {
  await knex.schema.createTable('authors', (t) => {
    t.increments('id')
    t.string('name', 100).notNullable()
    t.string('email').unique()
    t.uuid('ref').notNullable().defaultTo(knex.fn.uuid())
    t.timestamps(true, true)
  })
  await knex.schema.createTable('posts', (t) => {
    t.bigIncrements('id')
    t.integer('author_id').notNullable().references('id').inTable('authors').onDelete('CASCADE')
    t.text('body').notNullable()
    t.boolean('published').notNullable().defaultTo(false)
  })
}

exports.down = async function (knex) {
  await knex.schema.dropTable('posts')
  await knex.schema.dropTable('authors')
}
