// A migration that fails half way: its CREATE TABLE must roll back with it.
exports.up = async function (knex) {
  await knex.schema.createTable('half_done', (t) => {
    t.increments('id')
    t.text('note')
  })
  await knex('half_done').insert({ note: 'written before the failure' })
  await knex.raw('INSERT INTO no_such_table VALUES (1)')
}

exports.down = async function (knex) {
  await knex.schema.dropTableIfExists('half_done')
}
