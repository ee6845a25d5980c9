// Run by two migrators at once: the lock table must let exactly one in.
exports.up = async function (knex) {
  await knex.schema.createTable('race_marker', (t) => { t.increments('id') })
  await knex('race_marker').insert({})
}

exports.down = async function (knex) {
  await knex.schema.dropTable('race_marker')
}
