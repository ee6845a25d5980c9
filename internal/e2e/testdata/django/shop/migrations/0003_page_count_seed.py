# A rename, a data migration in Python and one in SQL, each reversible.
from django.db import migrations


def seed(apps, schema_editor):
    Tag = apps.get_model("shop", "Tag")
    Tag.objects.bulk_create([Tag(name="fiction"), Tag(name="science"), Tag(name="history")])


def unseed(apps, schema_editor):
    apps.get_model("shop", "Tag").objects.filter(name__in=["fiction", "science", "history"]).delete()


class Migration(migrations.Migration):

    dependencies = [
        ("shop", "0002_rating_code_title"),
    ]

    operations = [
        migrations.RenameField(model_name="book", old_name="pages", new_name="page_count"),
        migrations.RunPython(seed, unseed),
        migrations.RunSQL(
            "COMMENT ON TABLE shop_book IS 'books on sale'",
            "COMMENT ON TABLE shop_book IS NULL",
        ),
    ]
