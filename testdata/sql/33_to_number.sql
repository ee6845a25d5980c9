-- to_number(text, template)
SELECT to_number('12,454.8-', '99G999D9S'), to_number('1.5', '9.99'), to_number('  123', '999'), to_number('-42', '999'), to_number('1,234', '9,999'), to_number('12.345', '99.999');
SELECT to_number('<12>', '99PR'), to_number('12-', '99MI'), to_number('+7', 'S9'), to_number('007', '000'), to_number('5', '9.9'), to_number('123.456', '999');
SELECT to_number('1234', '99'), to_number('12', '9999'), to_number('1.2.3', '9.9.9');
SELECT to_number('abc', '999');
SELECT to_number('$1,234.50', 'L9,999.99');
SELECT to_number(x, '9,999.99') FROM (VALUES ('1,000.25'), ('0.5'), ('-2,000.5')) v(x);
